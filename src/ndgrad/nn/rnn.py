"""Temporary alias: ops/rnn.py (outside this refactor's file set) imports the composed LSTM step
from here; delete this file once it imports them from ndgrad.nn.modules.recurrent."""
from .modules.recurrent import _lstm_step, _run_full  # noqa: F401
