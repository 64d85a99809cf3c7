"""A softmax (multinomial logistic) model: standardise, one matrix product, softmax. Trained elsewhere
(``train/``, scikit-learn); this module only loads the weights and infers, with numpy."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["LinearModel", "load_model"]


@dataclass(frozen=True)
class LinearModel:
    name: str
    classes: tuple[str, ...]
    weights: np.ndarray  # (features, classes)
    bias: np.ndarray  # (classes,)
    mean: np.ndarray  # (features,) standardisation
    scale: np.ndarray  # (features,)
    meta: dict[str, Any] = field(default_factory=dict)  # feature layout, training data, reported scores

    def proba(self, x: np.ndarray) -> np.ndarray:
        """Class probabilities for each row of ``x`` (or for one feature vector)."""
        one = x.ndim == 1
        z = ((np.atleast_2d(x) - self.mean) / self.scale) @ self.weights + self.bias
        z -= z.max(axis=1, keepdims=True)
        p = np.exp(z)
        p /= p.sum(axis=1, keepdims=True)
        return p[0] if one else p

    def predict(self, x: np.ndarray) -> list[str]:
        return [self.classes[i] for i in np.atleast_2d(self.proba(x)).argmax(axis=1)]

    def save(self, path: str | Path) -> None:
        np.savez_compressed(
            path,
            weights=self.weights.astype(np.float32),
            bias=self.bias.astype(np.float32),
            mean=self.mean.astype(np.float32),
            scale=self.scale.astype(np.float32),
            classes=np.array(self.classes),
            meta=np.array(json.dumps(self.meta, ensure_ascii=False)),
        )

    @classmethod
    def from_file(cls, path: str | Path, name: str | None = None) -> LinearModel:
        with np.load(path, allow_pickle=False) as z:
            return cls(
                name=name or Path(path).stem,
                classes=tuple(str(c) for c in z["classes"]),
                weights=z["weights"].astype(np.float32),
                bias=z["bias"].astype(np.float32),
                mean=z["mean"].astype(np.float32),
                scale=z["scale"].astype(np.float32),
                meta=json.loads(str(z["meta"])),
            )


@cache
def load_model(name: str) -> LinearModel:
    """A shipped model by name (``judge/weights/<name>.npz``)."""
    path = resources.files("memscribe.judge") / "weights" / f"{name}.npz"
    with resources.as_file(path) as p:
        return LinearModel.from_file(p, name)
