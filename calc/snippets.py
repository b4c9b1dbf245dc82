"""Ready-to-run serving snippets for an advisor option (issue 11 item 3): the ``vllm serve`` command
line (vLLM with NxD Inference on Neuron, upstream vLLM on GPUs) with the TP degree, batch
(``--max-num-seqs``), sequence buckets and dtype of the option, and the framework / Neuron SDK
version it needs — the newest version in data/framework_support.toml that supports the instance
family, the model preset and the dtype. Pure text; every flag is one the cited docs show.

When no version supports the configuration, ``text`` is None and ``reasons`` say why (keys in
steps.toml [reason]); a custom model is not checked against the model lists (``checks`` says
which checks ran).
"""

import json
from dataclasses import dataclass, field
from typing import Any

from . import data, frameworks

HF_PREFIX = "https://huggingface.co/"
# The engine's framework ids (data/frameworks.toml) whose servers these commands start, and the
# framework_support.toml names of those commands: the commands here are vLLM's only.
SNIPPET_FRAMEWORKS = {"vllm-neuron": "vllm-nxdi", "vllm-gpu": "vllm"}
CUSTOM_MODEL_PLACEHOLDER = "<your-model-path-or-hf-repo>"
VLLM_DTYPE = {"bf16": "bfloat16", "fp16": "float16", "fp32": "float32"}
VLLM_QUANTIZATION = {"fp8": "fp8"}


@dataclass(frozen=True, slots=True)
class Snippet:
    framework: str | None             # framework_support id used (None: none fits)
    framework_name: str | None
    framework_version: str | None     # plugin version (Neuron) or vLLM version (GPU)
    vllm_version: str | None
    neuron_sdk: str | None
    text: str | None
    language: str                     # "bash"
    supported: bool
    checks: list[str]                 # instance_family, model, dtype
    reasons: list[dict[str, Any]] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "framework": self.framework, "framework_name": self.framework_name,
            "framework_version": self.framework_version, "vllm_version": self.vllm_version,
            "neuron_sdk": self.neuron_sdk, "text": self.text, "language": self.language,
            "supported": self.supported, "checks": self.checks, "reasons": self.reasons,
            "sources": self.sources,
        }


def hf_repo(model_id: str) -> str | None:
    """The Hugging Face repo of a preset, from the first cited source that is a huggingface.co
    page (data/sources/models.toml), e.g. meta-llama/Llama-3.1-8B; None for a custom model."""
    raw = data.record("models", model_id)
    if raw is None:
        return None
    for source_id in raw.get("sources", []):
        source = data.record("sources", str(source_id))
        url = "" if source is None else str(source.get("url", ""))
        if url.startswith(HF_PREFIX):
            parts = url[len(HF_PREFIX):].split("/")
            if len(parts) >= 2:
                return f"{parts[0]}/{parts[1]}"
    return None


def _misses(
    record: dict[str, Any], *, family: str, model_id: str, custom: bool, dtype: str
) -> list[dict[str, Any]]:
    misses: list[dict[str, Any]] = []
    if family not in record.get("instance_families", []):
        misses.append({"key": "framework_instance_unsupported",
                       "params": {"family": family, "framework": record["id"]}})
    if not custom and "models" in record and model_id not in record["models"]:
        misses.append({"key": "framework_model_unsupported",
                       "params": {"model": model_id, "framework": record["id"]}})
    if dtype not in record.get("dtypes", []):
        misses.append({"key": "framework_dtype_unsupported",
                       "params": {"dtype": dtype, "framework": record["id"]}})
    return misses


def _vllm_nxdi(model_path: str, *, tp: int, batch: int, input_len: int, output_len: int,
               dtype: str) -> str:
    override = {"override_neuron_config": {
        "enable_bucketing": True,
        "context_encoding_buckets": [input_len],
        "token_generation_buckets": [input_len + output_len],
    }}
    config = json.dumps(override, separators=(", ", ": "))
    return "\n".join([
        'export VLLM_NEURON_FRAMEWORK="neuronx-distributed-inference"',
        "vllm serve \\",
        f"  --model {model_path} \\",
        f"  --tensor-parallel-size {tp} \\",
        f"  --max-num-seqs {batch} \\",
        f"  --max-model-len {input_len + output_len} \\",
        f"  --dtype {VLLM_DTYPE[dtype]} \\",
        f"  --additional-config '{config}' \\",
        "  --port 8000",
    ])


def _vllm_gpu(model_path: str, *, tp: int, batch: int, input_len: int, output_len: int,
              dtype: str, kv_dtype: str | None) -> str:
    lines = [
        "vllm serve \\",
        f"  --model {model_path} \\",
        f"  --tensor-parallel-size {tp} \\",
        f"  --max-num-seqs {batch} \\",
        f"  --max-model-len {input_len + output_len} \\",
    ]
    if dtype in VLLM_QUANTIZATION:
        lines.append(f"  --quantization {VLLM_QUANTIZATION[dtype]} \\")
    else:
        lines.append(f"  --dtype {VLLM_DTYPE[dtype]} \\")
    if kv_dtype == "fp8":
        lines.append("  --kv-cache-dtype fp8 \\")
    lines.append("  --port 8000")
    return "\n".join(lines)


def snippet(
    *, model_id: str, instance_id: str, tp: int, batch: int, input_len: int, output_len: int,
    dtype: str, kv_dtype: str | None = None, framework: str | None = None,
    beyond_max_positions: int | None = None,
) -> Snippet:
    """The serving command for one configuration. ``framework`` (an engine framework id of
    data/frameworks.toml, e.g. vllm-neuron) must be one whose server the command starts
    (SNIPPET_FRAMEWORKS); absent: the instance kind's vLLM. A length beyond the model's
    maximum positions (``beyond_max_positions``) gets no command: vLLM refuses to start it."""
    instance = data.instance(instance_id)
    custom = data.record("models", model_id) is None
    checks = ["instance_family", "dtype"] + ([] if custom else ["model"])
    if framework is not None and framework not in SNIPPET_FRAMEWORKS:
        return Snippet(None, None, None, None, None, None, "bash", False, checks,
                       [{"key": "snippet_framework_missing",
                         "params": {"framework": frameworks.get(framework).name}}])
    if beyond_max_positions is not None:
        return Snippet(None, None, None, None, None, None, "bash", False, checks,
                       [{"key": "snippet_beyond_positions",
                         "params": {"max": beyond_max_positions}}])
    wanted = None if framework is None else SNIPPET_FRAMEWORKS[framework]
    candidates = [r for r in data.records("framework_support") if r.get("kind") == instance.kind
                  and (wanted is None or r.get("framework") == wanted)]
    if not candidates:
        return Snippet(None, None, None, None, None, None, "bash", False, checks,
                       [{"key": "framework_unknown",
                         "params": {"framework": framework, "kind": instance.kind}}])
    chosen: dict[str, Any] | None = None
    newest_misses: list[dict[str, Any]] = []
    for record in candidates:  # newest first (file order)
        misses = _misses(record, family=instance.family, model_id=model_id, custom=custom,
                         dtype=dtype)
        if not misses:
            chosen = record
            break
        if not newest_misses:
            newest_misses = misses
    if chosen is None:
        head = candidates[0]
        return Snippet(str(head["id"]), str(head["name"]), None, None, None, None, "bash", False,
                       checks, newest_misses, [str(s) for s in head.get("sources", [])])
    repo = None if custom else hf_repo(model_id)
    reasons: list[dict[str, Any]] = []
    if repo is None:
        reasons.append({"key": "custom_model_path", "params": {}})
    if "models" not in chosen:
        reasons.append({"key": "framework_model_not_checked",
                        "params": {"framework": chosen["id"]}})
        checks = [check for check in checks if check != "model"]
    if kv_dtype is not None and kv_dtype != dtype and not (
            instance.kind == "gpu" and kv_dtype == "fp8"):
        reasons.append({"key": "kv_dtype_not_in_snippet", "params": {"kv_dtype": kv_dtype}})
    model_path = repo or CUSTOM_MODEL_PLACEHOLDER
    if instance.kind == "neuron":
        text = _vllm_nxdi(model_path, tp=tp, batch=batch, input_len=input_len,
                          output_len=output_len, dtype=dtype)
    else:
        text = _vllm_gpu(model_path, tp=tp, batch=batch, input_len=input_len,
                         output_len=output_len, dtype=dtype, kv_dtype=kv_dtype)
    version = chosen.get("plugin_version", chosen.get("vllm_version"))
    return Snippet(
        framework=str(chosen["id"]), framework_name=str(chosen["name"]),
        framework_version=None if version is None else str(version),
        vllm_version=str(chosen.get("vllm_version")) if "vllm_version" in chosen else None,
        neuron_sdk=str(chosen["neuron_sdk"]) if "neuron_sdk" in chosen else None,
        text=text, language="bash", supported=True, checks=checks, reasons=reasons,
        sources=[str(s) for s in chosen.get("sources", [])],
    )
