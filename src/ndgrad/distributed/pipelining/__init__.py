"""ndgrad.distributed.pipelining: pipeline parallelism with split (zero-bubble) backward.

- _backward.py: stage_backward, stage_backward_input (I), stage_backward_weight (W)
- stage.py: PipelineStage, pipeline() / SplitPoint to cut an nn.Sequential into stages
- schedules.py: GPipe, 1F1B, Interleaved1F1B, InterleavedZeroBubble (ZB-H1), ZBV; action lists
- _transport.py: activations and gradients in process or over MPI; _trace.py: timelines
"""
from ._backward import stage_backward, stage_backward_input, stage_backward_weight  # noqa: F401
from ._trace import Timeline, bubble_fraction, export_chrome_trace  # noqa: F401
from .microbatch import merge_chunks, split_args_kwargs_into_chunks  # noqa: F401
from .schedules import (PipelineScheduleMulti, Schedule1F1B, ScheduleGPipe, ScheduleInterleaved1F1B,  # noqa: F401
                        ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble, _Action, format_pipeline_order,
                        get_schedule_class, validate_pipeline_order)
from .stage import Pipe, PipelineStage, SplitPoint, pipeline  # noqa: F401
