"""The HTTP transports: httpx2, the aiohttp adapter, per-loop sessions and pools; the one place errors
from the wire are translated."""
