"""The send path both clients share: configuration, request building, attempts (budget, idempotency,
unknown outcomes), responses, streams, pages, the recorder. Resources are typed against it; the
clients in :mod:`holyclient._client` bind the resources on top of it."""
