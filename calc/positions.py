"""A sequence longer than the model was trained for: answered, and said (not refused).

Published measurements run models past their ``max_position_embeddings`` (Llama 2 at 8k-16k
tokens with RoPE scaling), so such a length is computed as given; the result names the model's
limit so the page and the CLI can say it."""

from .specs import ModelSpec


def beyond_max_positions(model: ModelSpec, tokens: int) -> int | None:
    """The model's maximum positions when ``tokens`` exceeds them, else None (also when the
    model does not state its maximum)."""
    limit = model.max_position_embeddings
    return limit if limit is not None and tokens > limit else None
