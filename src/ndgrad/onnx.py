"""ndgrad.onnx (torch.onnx): ndgrad has no ONNX exporter. The module exists so that programs which
import it (and export only when asked) run; exporting raises NotImplementedError."""


def export(model, args=(), f=None, *more, **kwargs):
    raise NotImplementedError("torch.onnx.export: ndgrad has no ONNX exporter (it traces no graphs). Save the "
                              "weights with ndgrad.save(model.state_dict(), path) and export from torch, which "
                              "loads that file.")


def is_in_onnx_export():
    return False
