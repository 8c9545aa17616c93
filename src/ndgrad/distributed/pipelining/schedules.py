"""Pipeline schedules: which stage runs which microbatch's F, B (or I and W) when, on which rank.

Every schedule is one per-rank list of actions ("0F0 0I0 0W0 ..."), derived once by simulating
the pipeline with unit costs (F = I = W = 1, B = I + W = 2) under the schedule's policy:
- GPipe: all forwards, then all backwards.
- 1F1B: a rank keeps at most (ranks - rank) microbatches in flight (forwarded, input gradient not
  yet computed) and prefers backward work.
- Interleaved1F1B: several stages per rank, placed round-robin (stage s on rank s % ranks),
  with Megatron's warm-up depth.
- InterleavedZeroBubble (ZB-H1 when a rank holds one stage): backward split into I and W; I
  first (the previous stage waits for it), W deferred into the slots where a rank would idle.
- ZBV: two stages per rank placed in a V (rank r holds stages r and 2*ranks-1-r), split backward.
The simulation is itself an execution, so the lists it yields can never deadlock; every list,
generated or given, is checked by `validate_pipeline_order`. The same lists run with all
stages in one process (for tests and debugging) or one rank per process over MPI.
"""
import re
from typing import NamedTuple

from .._group import PeerFailedError as _PeerFailed
from ._trace import Timeline, bubble_fraction, export_chrome_trace
from ._transport import Transport
from .microbatch import merge_chunks, split_args_kwargs_into_chunks
from .stage import PipelineStage

__all__ = ["_Action", "PipelineScheduleMulti", "ScheduleGPipe", "Schedule1F1B", "ScheduleInterleaved1F1B",
           "ScheduleInterleavedZeroBubble", "ScheduleZBVZeroBubble", "validate_pipeline_order",
           "format_pipeline_order", "get_schedule_class"]

FORWARD, BACKWARD_INPUT, BACKWARD_WEIGHT, FULL_BACKWARD = "F", "I", "W", "B"
COST = {FORWARD: 1, BACKWARD_INPUT: 1, BACKWARD_WEIGHT: 1, FULL_BACKWARD: 2}


class _Action(NamedTuple):
    stage_index: int
    computation_type: str
    microbatch_index: int

    def __str__(self):
        return f"{self.stage_index}{self.computation_type}{self.microbatch_index}"

    __repr__ = __str__

    @staticmethod
    def from_str(text):
        m = re.fullmatch(r"(\d+)([FIWB])(\d+)", text.strip())
        if m is None:
            raise ValueError(f"invalid action {text!r}: expected stage, one of F I W B, microbatch, e.g. '0F3'")
        return _Action(int(m[1]), m[2], int(m[3]))


def _dependencies(action, num_stages):
    """The events that must be complete before `action` can run (G = input gradient ready)."""
    s, kind, m = action
    if kind == FORWARD:
        return [("F", s - 1, m)] if s > 0 else []
    if kind == BACKWARD_WEIGHT:
        return [("G", s, m)]
    return [("F", s, m)] + ([("G", s + 1, m)] if s < num_stages - 1 else [])


def _events(action):
    """The events an action completes (a full backward also completes its weight gradients)."""
    s, kind, m = action
    return {FORWARD: [("F", s, m)], BACKWARD_INPUT: [("G", s, m)], BACKWARD_WEIGHT: [("W", s, m)],
            FULL_BACKWARD: [("G", s, m), ("W", s, m)]}[kind]


def validate_pipeline_order(order, num_stages, n_microbatches, stage_to_rank):
    """Check per-rank action lists; return one order of all actions that respects every dependency.

    Checks that each action runs on the rank holding its stage, that every microbatch of every
    stage has exactly one F and one B (or one I and one W), and that the lists cannot deadlock
    (F before I before W, activations and gradients produced before they are consumed)."""
    seen = {}
    for rank, actions in order.items():
        for a in actions:
            if not (0 <= a.stage_index < num_stages and 0 <= a.microbatch_index < n_microbatches):
                raise ValueError(f"rank {rank}: action {a} is outside {num_stages} stages x {n_microbatches} "
                                 "microbatches")
            if stage_to_rank[a.stage_index] != rank:
                raise ValueError(f"rank {rank}: action {a} belongs to stage {a.stage_index}, which is placed on "
                                 f"rank {stage_to_rank[a.stage_index]}")
            if a in seen:
                raise ValueError(f"rank {rank}: action {a} appears twice")
            seen[a] = rank
    for s in range(num_stages):
        for m in range(n_microbatches):
            kinds = "".join(k for k in "FBIW" if _Action(s, k, m) in seen)
            if kinds not in ("FB", "FIW"):
                raise ValueError(f"stage {s} microbatch {m} has actions {kinds or 'none'}: each needs one F and "
                                 "either one B or one I and one W")
    done, merged = set(), []
    position = {r: 0 for r in order}
    while len(merged) < len(seen):
        progressed = False
        for rank, actions in order.items():
            while position[rank] < len(actions):
                a = actions[position[rank]]
                if not all(d in done for d in _dependencies(a, num_stages)):
                    break
                done.update(_events(a))
                merged.append(a)
                position[rank] += 1
                progressed = True
        if not progressed:
            def missing(a):
                return " ".join(f"{s}{kind}{m}" for kind, s, m in _dependencies(a, num_stages)
                                if (kind, s, m) not in done)
            stuck = ", ".join(f"rank {r} at {acts[position[r]]} (needs {missing(acts[position[r]])})"
                              for r, acts in order.items() if position[r] < len(acts))
            raise ValueError(f"the pipeline order deadlocks: {stuck} (G = input gradient, from I or B)")
    return merged


def format_pipeline_order(order, timeline=None):
    """One line per rank: its actions in order; with a simulated timeline, idle slots show as '.'."""
    lines = []
    for rank, actions in sorted(order.items()):
        if timeline is None:
            cells = [str(a) for a in actions]
        else:
            cells, t = [], 0
            for a in actions:
                start = timeline[a][0]
                cells += ["." * len(str(a))] * (start - t) + [str(a)] + ["~" * len(str(a))] * (COST[a[1]] - 1)
                t = start + COST[a[1]]
        lines.append(f"rank {rank}: " + " ".join(cells))
    return "\n".join(lines)


class PipelineScheduleMulti:
    """Runs the stages of a pipeline over microbatches with a per-rank action list.

    stages: the PipelineStage(s) of this process. With all stages of the pipeline in one process
    the whole schedule runs locally (num_ranks sets how many ranks it simulates); stages built
    with a `group` (ndgrad.distributed) run one rank per process over MPI.
    loss_fn(output, target) is applied on the last stage per microbatch; with scale_grads the
    gradients are divided by n_microbatches, so a mean loss gives the gradient of the full batch.
    """
    _placement = "loop"          # "loop": stage s on rank s % ranks; "v": two stages per rank in a V
    _split_backward = False
    _all_forward_first = False   # GPipe
    _stages_per_rank = 2         # default for local runs

    def __init__(self, stages, n_microbatches, loss_fn=None, scale_grads=True, num_ranks=None, timeout=None):
        stages = [stages] if isinstance(stages, PipelineStage) else list(stages)
        if not stages:
            raise ValueError(f"{type(self).__name__}: no stages given")
        if n_microbatches < 1:
            raise ValueError(f"{type(self).__name__}: n_microbatches must be positive, got {n_microbatches}")
        self._stages = {s.stage_index: s for s in stages}
        self._n_microbatches = n_microbatches
        self._loss_fn = loss_fn
        self.scale_grads = scale_grads
        self._num_stages = stages[0].num_stages
        group = stages[0].group
        self._distributed = group is not None and group.size() > 1
        if self._distributed:
            self.num_ranks, self.rank = group.size(), group.rank()
        else:
            missing = sorted(set(range(self._num_stages)) - set(self._stages))
            if missing:
                raise ValueError(f"{type(self).__name__}: stages {missing} are missing; a schedule in one process "
                                 "needs every stage (build stages with group=... to run one rank per process)")
            self.num_ranks = num_ranks or max(1, self._num_stages // self._stages_per_rank)
            self.rank = None
        self.stage_to_rank = self.stage_placement(self._num_stages, self.num_ranks)
        if self._distributed:
            wrong = sorted(s for s in self._stages if self.stage_to_rank[s] != self.rank)
            if wrong:
                raise ValueError(f"rank {self.rank}: {type(self).__name__} places stages {wrong} on other ranks; "
                                 f"this rank holds stages {self._stages_of(self.rank)}")
        self.pipeline_order = self._calculate_order()
        self._merged = validate_pipeline_order(self.pipeline_order, self._num_stages, n_microbatches,
                                               self.stage_to_rank)
        self._my_actions = self.pipeline_order[self.rank] if self._distributed else self._merged
        # the action after which a stage's weight gradients are complete (data-parallel sync point)
        self._last_backward = {a.stage_index: a for a in self._my_actions
                               if a.computation_type in (FULL_BACKWARD, BACKWARD_WEIGHT)}
        self._transport = Transport(group if self._distributed else None, self.stage_to_rank, n_microbatches,
                                    self._num_stages, timeout)
        self.timeline = Timeline(self.rank if self._distributed else 0)
        self._steps_run = 0

    # placement and order ------------------------------------------------------------------
    @classmethod
    def stage_placement(cls, num_stages, num_ranks):
        """[rank holding stage s for each s]: which stages a rank must build for this schedule."""
        if cls._placement == "v":
            if num_stages != 2 * num_ranks:
                raise ValueError(f"{cls.__name__} needs 2 stages per rank (a V): got {num_stages} stages "
                                 f"for {num_ranks} ranks")
            return [s if s < num_ranks else 2 * num_ranks - 1 - s for s in range(num_stages)]
        if num_stages % num_ranks:
            raise ValueError(f"{cls.__name__}: {num_stages} stages cannot be spread evenly over {num_ranks} ranks")
        if cls._stages_per_rank == 1 and num_stages != num_ranks:
            raise ValueError(f"{cls.__name__} runs one stage per rank: got {num_stages} stages for {num_ranks} ranks")
        return [s % num_ranks for s in range(num_stages)]

    def _stages_of(self, rank):
        return [s for s in range(self._num_stages) if self.stage_to_rank[s] == rank]

    def _in_flight_limit(self, rank):
        return None   # no limit on microbatches forwarded but not yet backwarded

    def _calculate_order(self):
        order, self._simulated = _simulate(self)
        return order

    def format_pipeline_order(self, idle=True):
        """The per-rank action lists, with the idle slots of the unit-cost simulation when idle=True."""
        return format_pipeline_order(self.pipeline_order, self._simulated if idle else None)

    def __str__(self):
        return f"{type(self).__name__}({self._num_stages} stages, {self.num_ranks} ranks, " \
               f"{self._n_microbatches} microbatches)\n{self.format_pipeline_order()}"

    def simulated_bubble_fraction(self, durations=None):
        """Idle share of rank time when every rank runs its list as soon as its inputs are ready.

        durations: {action: seconds}, e.g. measured ones (see `measured_durations`); by default
        the unit costs F = I = W = 1, B = 2."""
        return bubble_fraction(self.replay(durations))

    def replay(self, durations=None):
        """Per-rank Timelines of the action lists run with the given durations (unit costs by default)."""
        cost = (lambda a: COST[a.computation_type]) if durations is None else durations.__getitem__
        timelines = [Timeline(r) for r in range(self.num_ranks)]
        rank_free, done = [0.0] * self.num_ranks, {}
        for a in self._merged:     # a topological order: every dependency comes first
            r = self.stage_to_rank[a.stage_index]
            start = max([rank_free[r]] + [done[d] for d in _dependencies(a, self._num_stages)])
            rank_free[r] = end = start + cost(a)
            for e in _events(a):
                done[e] = end
            timelines[r].add(str(a), "compute", start, end, stage=a.stage_index)
        return timelines

    def measured_durations(self):
        """{action: seconds} of the last step's computations on this process."""
        return {_Action.from_str(name): end - start for name, cat, start, end, _ in self.timeline.events
                if cat == "compute"}

    # observability ------------------------------------------------------------------------
    def timelines(self):
        """The last step's timeline of every rank: [Timeline] on rank 0 (None on the others, which
        send theirs; every rank must call this). In one process, the events split by virtual rank."""
        if self._distributed:
            return self._transport.group.gather_object(self.timeline)
        per_rank = [Timeline(r) for r in range(self.num_ranks)]
        for name, cat, start, end, args in self.timeline.events:
            per_rank[self.stage_to_rank[args["stage"]]].add(name, cat, start, end, **args)
        return per_rank

    def bubble_fraction(self):
        """Measured idle share of the ranks during the last step (on rank 0; None elsewhere).
        Meaningful with one process per rank: in one process the ranks take turns."""
        timelines = self.timelines()
        return None if timelines is None else bubble_fraction(timelines)

    def export_chrome_trace(self, path):
        """Write the last step's per-rank timelines (F/I/W/B, send, recv) as a Chrome trace (rank 0)."""
        timelines = self.timelines()
        if timelines is not None:
            export_chrome_trace(path, timelines)
        return timelines

    # running ------------------------------------------------------------------------------
    def step(self, *args, target=None, losses=None, **kwargs):
        """Run one step over the microbatches of (args, kwargs); returns the merged output on the
        rank holding the last stage (None elsewhere). Gradients accumulate into `.grad`."""
        M = self._n_microbatches
        mb_args, mb_kwargs = (split_args_kwargs_into_chunks(args, kwargs, M) if 0 in self._stages
                              else ([()] * M, [{}] * M))
        last = self._num_stages - 1
        targets = None
        if last in self._stages and self._loss_fn is not None:
            if target is None:
                raise RuntimeError(f"{type(self).__name__}.step: the last stage needs target= for its loss_fn")
            targets = split_args_kwargs_into_chunks((target,), {}, M)[0]
        for st in self._stages.values():
            st.clear_runtime_states()
        outputs, step_losses = {}, {}
        self.timeline.clear()
        self._transport.begin_step(backward=self._loss_fn is not None)
        self._steps_run += 1
        group = self._transport.group
        try:
            for action in self._my_actions:
                if self._loss_fn is None and action.computation_type != FORWARD:
                    continue   # no loss: forward only
                if group is not None:   # named in the errors of this rank and of the others
                    group.step = f"{type(self).__name__} step {self._steps_run}, action {action}"
                try:
                    self._run(action, mb_args, mb_kwargs, targets, outputs, step_losses)
                except (TimeoutError, _PeerFailed):
                    raise
                except Exception as e:
                    where = f"rank {self.rank}, " if self._distributed else ""
                    raise RuntimeError(f"{where}stage {action.stage_index}: action {action} failed: "
                                       f"{type(e).__name__}: {e}") from e
            if group is not None:
                group.step = f"{type(self).__name__} step {self._steps_run}, end"
            self._transport.end_step()
        except BaseException as e:   # (sys.exit in a stage too: the others must not wait for this rank)
            self._transport.abort(e)
            raise
        finally:
            if group is not None:
                group.step = None
        if self.scale_grads and self._loss_fn is not None:
            for st in self._stages.values():
                st.scale_grads(M)
        if last in self._stages:
            if losses is not None:
                losses.extend(step_losses[m] for m in range(M) if m in step_losses)
            return merge_chunks([outputs[m] for m in range(M)])
        return None

    def _run(self, action, mb_args, mb_kwargs, targets, outputs, losses):
        """Receive what the action needs, compute (the timeline's "compute" span), send the result."""
        s, kind, m = action
        st = self._stages[s]
        send, recv, timeline = self._transport.send, self._transport.recv, self.timeline
        if kind == FORWARD:
            inputs = mb_args[m] if st.is_first else recv("act", s, m, timeline)
            with timeline.record(str(action), "compute", stage=s):
                outs = st.forward_one_chunk(m, inputs, mb_kwargs[m] if st.is_first else None)
                if st.is_last:
                    outputs[m] = outs[0] if len(outs) == 1 else outs
                    if self._loss_fn is not None:
                        losses[m] = self._loss_fn(outputs[m], targets[m][0])
            if not st.is_last:
                send("act", s + 1, m, outs, timeline)
        elif kind == BACKWARD_WEIGHT:
            with timeline.record(str(action), "compute", stage=s):
                st.backward_weight_one_chunk(m, last_backward=self._last_backward[s] == action)
        else:
            grads = None if st.is_last else recv("grad", s, m, timeline)
            with timeline.record(str(action), "compute", stage=s):
                dinputs = st.backward_one_chunk(m, grads, losses.get(m), full_backward=kind == FULL_BACKWARD,
                                                last_backward=self._last_backward[s] == action)
            if not st.is_first:
                send("grad", s - 1, m, dinputs, timeline)


def _simulate(schedule):
    """Per-rank action lists from a unit-cost simulation of the schedule's policy.

    Returns ({rank: [actions]}, {action: (start, end)})."""
    S, R, M = schedule._num_stages, schedule.num_ranks, schedule._n_microbatches
    split = schedule._split_backward
    rank_of = schedule.stage_to_rank
    chunk = {s: schedule._stages_of(rank_of[s]).index(s) for s in range(S)}
    pending = {r: set() for r in range(R)}
    for s in range(S):
        for m in range(M):
            kinds = (FORWARD, BACKWARD_INPUT, BACKWARD_WEIGHT) if split else (FORWARD, FULL_BACKWARD)
            pending[rank_of[s]].update(_Action(s, k, m) for k in kinds)
    limit = {r: schedule._in_flight_limit(r) for r in range(R)}

    def forward_key(a):
        if schedule._placement == "v":   # depth first: a microbatch goes down the V before the next starts
            return (a.microbatch_index, -chunk[a.stage_index])
        # Megatron's order: rounds of `R` microbatches, chunk by chunk
        return (a.microbatch_index // R, chunk[a.stage_index], a.microbatch_index % R)

    def backward_key(a):
        return (a.microbatch_index // R, -chunk[a.stage_index], a.microbatch_index % R)

    finish, times = {}, {}
    order = {r: [] for r in range(R)}
    busy_until, in_flight = [0] * R, [0] * R
    left, t = sum(len(p) for p in pending.values()), 0
    horizon = 4 * sum(COST[a[1]] for p in pending.values() for a in p) + 8
    while left:
        for r in range(R):
            if busy_until[r] > t:
                continue
            ready = [a for a in pending[r]
                     if all(finish.get(d, horizon) <= t for d in _dependencies(a, S))]
            fwd = [a for a in ready if a.computation_type == FORWARD]
            bwd = [a for a in ready if a.computation_type in (FULL_BACKWARD, BACKWARD_INPUT)]
            wgt = [a for a in ready if a.computation_type == BACKWARD_WEIGHT]
            # the limit holds back new microbatches; a later chunk's forward is always let through
            fwd = [a for a in fwd if limit[r] is None or in_flight[r] < limit[r] or chunk[a.stage_index] > 0]
            if schedule._all_forward_first:
                forwards_left = any(a.computation_type == FORWARD for a in pending[r])
                choice = (min(fwd, key=forward_key) if fwd else None) if forwards_left else \
                    (min(bwd, key=lambda a: (a.microbatch_index, -a.stage_index)) if bwd else None)
            elif bwd:
                choice = min(bwd, key=backward_key)
            elif fwd:
                choice = min(fwd, key=forward_key)
            elif wgt:
                choice = min(wgt, key=lambda a: finish[("G", a.stage_index, a.microbatch_index)])
            else:
                choice = None
            if choice is None:
                continue
            end = t + COST[choice.computation_type]
            for e in _events(choice):
                finish[e] = end
            times[choice] = (t, end)
            busy_until[r] = end
            pending[r].discard(choice)
            order[r].append(choice)
            left -= 1
            if choice.computation_type == FORWARD:
                in_flight[r] += 1
            elif choice.computation_type in (BACKWARD_INPUT, FULL_BACKWARD):
                in_flight[r] -= 1
        t += 1
        if t > horizon:
            raise RuntimeError(f"{type(schedule).__name__}: the schedule policy deadlocked for {S} stages, {R} ranks "
                               f"and {M} microbatches")
    return order, times


class ScheduleGPipe(PipelineScheduleMulti):
    """All forwards, then all backwards (one stage per rank)."""
    _all_forward_first = True
    _stages_per_rank = 1


class Schedule1F1B(PipelineScheduleMulti):
    """One forward, one backward: at most (ranks - rank) microbatches in flight per rank."""
    _stages_per_rank = 1

    def _in_flight_limit(self, rank):
        return self.num_ranks - rank


class ScheduleInterleaved1F1B(PipelineScheduleMulti):
    """1F1B with several stages per rank placed round-robin (Megatron's interleaved schedule)."""

    def _in_flight_limit(self, rank):
        chunks = self._num_stages // self.num_ranks
        if chunks == 1:
            return self.num_ranks - rank   # 1F1B (and ZB-H1, for the zero-bubble subclass)
        return (self.num_ranks - rank - 1) * 2 + (chunks - 1) * self.num_ranks + 1


class ScheduleInterleavedZeroBubble(ScheduleInterleaved1F1B):
    """Interleaved 1F1B with backward split into I and W, W deferred into idle slots (ZB-H1)."""
    _split_backward = True


class ScheduleZBVZeroBubble(PipelineScheduleMulti):
    """Zero-bubble V schedule: rank r holds stages r and 2*ranks-1-r; backward split into I and W."""
    _placement = "v"
    _split_backward = True

    def _in_flight_limit(self, rank):
        return 2 * self.num_ranks


def get_schedule_class(name):
    """The schedule class for a name such as 'gpipe', '1F1B', 'Interleaved1F1B', 'zbv'."""
    classes = {"gpipe": ScheduleGPipe, "1f1b": Schedule1F1B, "interleaved1f1b": ScheduleInterleaved1F1B,
               "interleavedzerobubble": ScheduleInterleavedZeroBubble, "zbh1": ScheduleInterleavedZeroBubble,
               "zbv": ScheduleZBVZeroBubble, "zbvzerobubble": ScheduleZBVZeroBubble}
    key = name.lower().replace("_", "").replace("-", "")
    if key not in classes:
        raise ValueError(f"unknown pipeline schedule {name!r}; choose one of {sorted(classes)}")
    return classes[key]
