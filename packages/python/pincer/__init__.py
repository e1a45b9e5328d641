"""Pincer's Python client: episodes of the tasks that ``pincer serve DATASET`` serves over gRPC.

- :class:`Client`: the Episodes service, typed (list_tasks, start, step, observe, evaluate, close, renew, start_group);
- :func:`make`: a Gymnasium-shaped environment of one task (``pincer.gym``);
- ``pincer.osworld.DesktopEnv``: OSWorld's DesktopEnv for OSWorld's run scripts and agents.
"""
from .client import (
    Client,
    CloseResult,
    EnvironmentObservation,
    Episode,
    Evaluation,
    NodeVerdict,
    Observation,
    ObservationOptions,
    PincerError,
    StepResult,
    TaskInfo,
    to_action,
)
from .gym import PincerEnv, make
from . import daemon  # pincer.daemon: a machine's daemon, for agents that drive it directly

__version__ = "0.1.0"

__all__ = [
    "Client",
    "CloseResult",
    "EnvironmentObservation",
    "Episode",
    "Evaluation",
    "NodeVerdict",
    "Observation",
    "ObservationOptions",
    "PincerEnv",
    "PincerError",
    "StepResult",
    "TaskInfo",
    "__version__",
    "make",
    "to_action",
]
