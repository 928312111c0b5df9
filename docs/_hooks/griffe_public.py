"""Griffe extension: the API reference leaves out the public names that only holyclient itself calls.

A package is used through its face (CONTRIBUTING, "A package is used through its face"): when the send
pipeline charges a budget it calls ``UsageTracker.reserve`` and ``settle``, and when a Router moves a stream
to another target it calls ``Stream.refuse``. Those names cannot start with an underscore -- another
package calls them -- but a user never does, and a reference that lists them invites calls that corrupt a
budget or a stream. They are named here, by the path a user would write, and removed from what griffe
loaded; ``tests/test_api_reference.py`` checks that each still exists (a rename fails there, not silently
here) and that every other public method of a documented class is on the page.
"""

from __future__ import annotations

from typing import Any

import griffe

#: Public by name, called only by other packages of holyclient (the send path, the Router).
SEND_PATH = (
    # the pipeline's reserve/settle steps and their bookkeeping (client.usage is read, never charged)
    "holyclient.pricing.UsageTracker.reserve",
    "holyclient.pricing.UsageTracker.settle",
    "holyclient.pricing.UsageTracker.settle_uncertain",
    "holyclient.pricing.UsageTracker.settle_early",
    "holyclient.pricing.UsageTracker.charge",
    "holyclient.pricing.UsageTracker.charge_uncertain",
    "holyclient.pricing.UsageTracker.settle_later",
    "holyclient.pricing.UsageTracker.warn",
    "holyclient.pricing.UsageTracker.count_unpriced",
    # a background response's hold, kept by its ledger until an answer collects it
    "holyclient.pricing.UsageTracker.defer",
    "holyclient.pricing.UsageTracker.collect",
    "holyclient.pricing.Reservation",
    # an attempt's charge, made and settled by the pipeline from its endpoint's declaration
    "holyclient.pricing.Ledger",
    "holyclient.pricing.failure_kind",
    "holyclient.pricing.holds",
    "holyclient.pricing.counts_tokens",
    # a stream's charging, wired by the client when it opens a stream
    "holyclient.pricing.StreamMeter",
    "holyclient.pricing.ask_for_usage",
    # a Router closing a stream it fails over from, uncharged
    "holyclient.Stream.refuse",
    "holyclient.AsyncStream.refuse",
    # a Router preparing a request for a target (RequestOptions is internal too)
    "holyclient.Target.prepare",
    "holyclient.Target.resolve_key",
)


class SendPathLeftOut(griffe.Extension):
    """Remove each :data:`SEND_PATH` object from the loaded package, so no page documents it."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        if pkg.name != "holyclient":
            return
        for path in SEND_PATH:
            parent_path, _, name = path.removeprefix("holyclient.").rpartition(".")
            parent: Any = pkg[parent_path] if parent_path else pkg
            # a class named through a package face is an alias: remove the method from the class itself;
            # a name exported by a module is removed from that module (its face) only
            if parent.is_alias:
                parent = parent.final_target
            parent.del_member(name)
