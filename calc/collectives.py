"""The per-layer tensor-parallel all-reduce as each framework runs it: which algorithm a message
takes, how many latency steps it pays and how many bytes each chip sends over its link.

Algorithms (data/frameworks.toml `allreduce`):
  ring         — the collective library's all-reduce (Neuron collectives, NCCL):
                 2·ceil(log2 t) latency steps of c_hop, 2(t − 1)/t · M bytes per chip.
  trtllm-auto  — TensorRT-LLM's AUTO strategy of its TensorRT engines
                 (AllreducePlugin::selectImplementation, cpp/tensorrt_llm/plugins/ncclPlugin/
                 allreducePlugin.cpp, as stored for the 0.1x releases after the two-shot
                 workaround): on NVLink, a message within the workspace (16 MB at t ≤ 2, else
                 8 MB) goes one-shot when t ≤ 2, when M < 1 MB at t ≤ 4, when M < 0.5 MB above;
                 otherwise NCCL (two-shot is disabled: "TODO: remove this WAR after …
                 bug/4718747"). Without NVLink: NCCL. Not every release ran it: before the
                 workaround mid-size messages went two-shot (and custom all-reduce was an
                 opt-in build flag, --use_custom_all_reduce); the 1.0 PyTorch backend picks
                 its own (a min-latency kernel at t ≤ 2 or up to 128 tokens, else NCCL). calc
                 applies this one rule to every TensorRT-LLM estimate.
  vllm-custom  — vLLM's custom all-reduce (csrc/custom_all_reduce.cuh CustomAllreduce::
                 allreduce; vllm/distributed/device_communicators/custom_all_reduce.py
                 max_size 8 MiB; SGLang runs the same kernels): t ∈ {2, 4, 6, 8} and
                 M < 8 MiB; t = 2 one-stage; one-stage when M < 512 KiB at t ≤ 4 or M < 256 KiB
                 at t ≤ 8, else two-stage; a larger message goes to NCCL. vLLM needs every GPU
                 pair on NVLink above two GPUs and a working peer-to-peer path at two, which
                 calc cannot know for a PCIe machine: without NVLink it assumes NCCL. Newer
                 releases with symmetric memory on (VLLM_ALLREDUCE_USE_SYMM_MEM) cap the custom
                 path lower on H100 and send larger messages to PyTorch's symmetric-memory
                 all-reduce, which calc counts as NCCL.
calc reads NVLink from the instance record's interconnect and takes it as every GPU pair linked:
true of the NVSwitch instances (p4d, p5, p5e, p5en, p6-b200); p3dn's eight V100s are not all
directly linked, a difference calc does not model.
One-shot (one-stage): every chip reads the t − 1 peers' whole messages and reduces them:
1 latency step, (t − 1) · M bytes. Two-stage: reduce-scatter then all-gather through the peers'
buffers: 2 latency steps, 2(t − 1)/t · M bytes. The custom kernels' steps cost c_custom
(Efficiency.custom_allreduce_step_s), fitted apart from the ring's c_hop.
"""

from dataclasses import dataclass

from .units import BYTES_PER_MIB

RING = "ring"
TRTLLM_AUTO = "trtllm-auto"
VLLM_CUSTOM = "vllm-custom"
ALGORITHMS = (RING, TRTLLM_AUTO, VLLM_CUSTOM)

TRTLLM_WORKSPACE_SMALL_TP_BYTES = 16_000_000   # getMaxRequiredWorkspaceSize: t ≤ 2
TRTLLM_WORKSPACE_BYTES = 8_000_000             # t > 2
TRTLLM_ONE_SHOT_TP4_BYTES = 1_000_000          # t ≤ 4: one-shot below 1 MB
TRTLLM_ONE_SHOT_BYTES = 500_000                # t > 4: one-shot below 0.5 MB
VLLM_MAX_BYTES = 8 * BYTES_PER_MIB             # custom_all_reduce.py max_size
VLLM_ONE_STAGE_TP4_BYTES = 512 * 1024          # t ≤ 4
VLLM_ONE_STAGE_TP8_BYTES = 256 * 1024          # t ≤ 8
VLLM_WORLD_SIZES = (2, 4, 6, 8)


@dataclass(frozen=True, slots=True)
class AllReduce:
    """One all-reduce of a message of M bytes over t chips."""

    algorithm: str          # ring | one-shot | two-stage
    ring_steps: int         # latency steps at c_hop
    custom_steps: int       # latency steps at c_custom
    bytes_per_chip: float   # bytes each chip moves over its link


def ring_steps(tp: int) -> int:
    """Latency steps of one small-message ring/tree all-reduce over t ranks: 2·ceil(log2 t)."""
    return 2 * (tp - 1).bit_length()


def _ring(tp: int, message_bytes: float) -> AllReduce:
    return AllReduce("ring", ring_steps(tp), 0, 2 * (tp - 1) / tp * message_bytes)


def _one_shot(tp: int, message_bytes: float) -> AllReduce:
    return AllReduce("one-shot", 0, 1, (tp - 1) * message_bytes)


def _two_stage(tp: int, message_bytes: float) -> AllReduce:
    return AllReduce("two-stage", 0, 2, 2 * (tp - 1) / tp * message_bytes)


def _trtllm_auto(tp: int, message_bytes: float, nvlink: bool) -> AllReduce:
    workspace = TRTLLM_WORKSPACE_SMALL_TP_BYTES if tp <= 2 else TRTLLM_WORKSPACE_BYTES
    if not nvlink or message_bytes > workspace:
        return _ring(tp, message_bytes)
    if (tp <= 2 or (tp <= 4 and message_bytes < TRTLLM_ONE_SHOT_TP4_BYTES)
            or message_bytes < TRTLLM_ONE_SHOT_BYTES):
        return _one_shot(tp, message_bytes)
    return _ring(tp, message_bytes)


def _vllm_custom(tp: int, message_bytes: float, nvlink: bool) -> AllReduce:
    if tp not in VLLM_WORLD_SIZES or message_bytes >= VLLM_MAX_BYTES or not nvlink:
        return _ring(tp, message_bytes)
    if tp == 2 or (tp <= 4 and message_bytes < VLLM_ONE_STAGE_TP4_BYTES) \
            or message_bytes < VLLM_ONE_STAGE_TP8_BYTES:
        return _one_shot(tp, message_bytes)
    return _two_stage(tp, message_bytes)


def all_reduce(algorithm: str, tp: int, message_bytes: float, *, nvlink: bool) -> AllReduce:
    """The all-reduce a framework running `algorithm` performs for one message of M bytes."""
    if tp <= 1:
        return AllReduce("none", 0, 0, 0.0)
    if algorithm == TRTLLM_AUTO:
        return _trtllm_auto(tp, message_bytes, nvlink)
    if algorithm == VLLM_CUSTOM:
        return _vllm_custom(tp, message_bytes, nvlink)
    return _ring(tp, message_bytes)
