"""Dropout modules: Dropout, Dropout1d/2d/3d, AlphaDropout, FeatureAlphaDropout."""
from .. import functional as F
from .module import Module


class Dropout(Module):
    _fn = staticmethod(F.dropout)

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(Dropout):
    _fn = staticmethod(F.dropout1d)


class Dropout2d(Dropout):
    _fn = staticmethod(F.dropout2d)


class Dropout3d(Dropout):
    _fn = staticmethod(F.dropout3d)


class AlphaDropout(Dropout):
    _fn = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(Dropout):
    _fn = staticmethod(F.feature_alpha_dropout)


__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "FeatureAlphaDropout"]
