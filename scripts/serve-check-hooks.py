# schemathesis hooks for scripts/serve-check: a streamed batch's body (`application/x-ndjson`,
# a string in docs/openapi.yaml) is sent as it was generated, UTF-8 encoded.
import schemathesis
from schemathesis.core.transforms import to_wire_text


@schemathesis.serializer("application/x-ndjson")
def ndjson(ctx, value):
    if isinstance(value, bytes):
        return {"data": value}
    return {"data": to_wire_text(value).encode("utf-8")}
