"""The one typed error of the engine: every bad input becomes a CalcError."""

from typing import Any


class CalcError(ValueError):
    """Invalid input: names the input field, a message key (data/i18n/*/errors.toml) and params."""

    def __init__(self, field: str, key: str, params: dict[str, Any] | None = None) -> None:
        self.field = field
        self.key = key
        self.params: dict[str, Any] = {"field": field, **(params or {})}
        super().__init__(self.english())

    def english(self) -> str:
        """One-line English message (the en template is kept here so no TOML is read on errors)."""
        template = _ENGLISH.get(self.key, "invalid value for {field}")
        try:
            text = template.format(**{k: _shown(v) for k, v in self.params.items()})
        except (KeyError, IndexError, ValueError):
            text = template
        return " ".join(text.split())

    def as_dict(self) -> dict[str, Any]:
        return {"field": self.field, "key": self.key, "params": self.params, "message": str(self)}


def _shown(value: Any) -> Any:
    """A param as the one-line message shows it: whole floats without ".0" (0, not 0.0; 10^13,
    not 10000000000000.0), lists as "a, b" (not a Python list)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, list | tuple):
        return ", ".join(str(_shown(v)) for v in value)
    return value


# Kept identical to data/i18n/en/errors.toml [error] (a test checks it).
_ENGLISH: dict[str, str] = {
    "must_be_number": "{field} must be a number (got {value})",
    "must_be_finite": "{field} must be a finite number (got {value})",
    "must_be_positive_int": "{field} must be a whole number of at least {min}",
    "must_be_positive_number": "{field} must be a number greater than {min}",
    "out_of_range": "{field} must be between {min} and {max} (got {value})",
    "out_of_range_above": "{field} must be greater than {min} and at most {max} (got {value})",
    "must_be_text": "{field} must be text",
    "unknown_choice": "{field}: {value} is not one of {allowed}",
    "unknown_model": "unknown model preset {value}",
    "unknown_instance": "unknown instance type {value}",
    "unknown_region": "no price data for region {value}; known regions: {allowed}",
    "unknown_field": "unknown input {value}",
    "missing_field": "{field} is required",
    "model_required": "give a model preset (model) or the architecture (params or layers, hidden, "
    "heads)",
    "tp_not_allowed": "tensor-parallel degree {value} is not allowed here; allowed: {allowed}",
    "tp_exceeds_cores": "tensor-parallel degree {value} needs more than the {max} cores available",
    "split_exceeds_cores": "tensor × pipeline parallel degree {value} needs more than the {max} "
    "cores available",
    "heads_not_divisible": "{value} attention heads cannot be split evenly over tp={allowed}",
    "heads_not_divisible_pad": "{value} attention heads cannot be split evenly over "
    "tp={allowed}: the advisor offers only degrees that divide the heads (vLLM needs it; a "
    "padded degree can be timed on the speed calculator)",
    "kv_heads_not_divisible": "kv_heads must divide heads ({value} does not divide {max})",
    "hidden_not_divisible": "hidden size {value} is not divisible by {max} heads; give head_dim",
    "not_a_decoder": "{value} is an encoder model: it has no token-by-token decode",
    "peak_flops_missing": "the peak {value} FLOPS of this instance's accelerator are not published",
    "bandwidth_missing": "the memory bandwidth of this instance's accelerator is not published",
    "memory_missing": "the memory per core of this instance's accelerator is not published",
    "bad_request": "the request must be a JSON object with kind and params",
    "unknown_kind": "unknown request kind {value}; allowed: {allowed}",
    "bad_schema_version": "unsupported schema_version {value}; give the number {allowed} (a JSON "
    "number, not a string)",
    "bad_argument": "{value}",
    "internal_error": "internal error: {value}",
    "number_malformed": "{field}: {value} is not a number",
    "number_ambiguous": "{field}: {value} can be read two ways; write it without group "
    "separators (for example 1500 or 1.5)",
    # advisor (issue 11)
    "rate_conflict": "give a request rate or tokens per day, not both",
    "goal_required": "give a deadline (deadline_h) or a budget (budget_usd)",
    # hardening (issue 17)
    "result_not_finite": "the inputs give a result too large to compute ({value}); use smaller "
    "values",
    "data_invalid": "data error: {value}",
    # trust (issue 9)
    "dtype_not_supported": "{value} is not supported by this instance's accelerator; supported: "
    "{allowed}",
    # models helper (issue 10): config.json import
    "hf_config_not_object": "the config.json must be a JSON object",
    "hf_unsupported_model_type": "config.json model_type {value} is not supported (supported: "
    "llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, deepseek_v2, deepseek_v3, "
    "gemma2, gemma3, gpt_oss, llama4, phi3, granite, olmo2)",
    "hf_missing_key": "config.json lacks the required key {value}",
    "hf_bad_value": "config.json key {value} has a value that cannot be used",
    "hf_bad_integer": "config.json key {value} must be a whole number from {min} to {max}",
    "hf_bad_flag": "config.json key {value} must be true or false",
    "hf_kv_heads_not_divisor": "config.json num_key_value_heads ({value}) must divide "
    "num_attention_heads ({heads})",
    "hf_experts_per_token_too_many": "config.json routes each token to {value} experts, more "
    "than the {experts} the model has",
    "hf_encoder_model_type": "config.json model_type {value} is an encoder-only model, which a "
    "config.json cannot describe here: choose a BERT preset, or give its shape with the encoder "
    "architecture (the CLI's --architecture encoder)",
    "hf_quoted_number": "config.json key {value} must be a JSON number, not text in quotes",
    "hf_unsupported_quantization": "config.json quantization_config method {value} is not "
    "supported (supported: fp8, mxfp4, awq, gptq, compressed-tensors)",
    "hf_unsupported_quantization_setting": "config.json quantization_config {value} is not "
    "supported (supported: {allowed})",
    "hf_config_unreadable": "cannot read the config.json file {value}",
    "hf_config_bad_json": "the config.json file is not valid JSON ({value})",
    "hf_config_too_large": "the file {value} is too large for a config.json (at most {max} "
    "characters)",
    "value_required": "{field}: a value is required",
    "given_twice": "{field}: given twice ({value}); give it once",
    "flag_given_twice": "{field}: given twice; give it once",
    "needs_field": "{field}: applies only with {value}",
    "not_with_field": "{field}: does not apply with {value}",
    "snippet_does_not_fit": "{field}: the model does not fit on {value} at this tensor-parallel "
    "degree, batch and length",
    "framework_unsupported": "{field}: {value} does not run on this hardware; choose one of "
    "{allowed}",
    "no_training_framework": "{field}: no training framework runs on {value}",
    "no_inference_framework": "{field}: no LLM serving framework in this guide runs on {value}",
    "compiled_too_small": "{field} {value} is smaller than the request needs ({min})",
    "list_item_empty": "{field}: item {value} of the list is empty; give an instance type or "
    "remove the item",
    "tokens_below_sequence": "{field}: {value} tokens is less than one sequence of {min} "
    "tokens; train on at least one sequence",
}
