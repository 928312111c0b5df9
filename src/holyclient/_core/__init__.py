"""The sans-IO core: request options and bodies, redaction, error mapping, SSE decoding, the retry
policy, multipart and binary bodies. Nothing here sends, awaits or sleeps."""
