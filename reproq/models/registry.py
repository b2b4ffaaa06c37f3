"""The encoder registry: each sequence-encoder family registers itself by name (``@register("rcnn", RCNNConfig)``);
:func:`build_encoder` builds one from its config, whose defaults are the paper's settings."""

from __future__ import annotations

from dataclasses import replace

from torch import nn

ENCODERS: dict[str, tuple[type, type[nn.Module]]] = {}  # name -> (config class, module class)


def register(name: str, config_class: type):
    """Class decorator: make a sequence encoder buildable by ``name`` from a ``config_class`` instance."""
    def decorate(module_class: type[nn.Module]) -> type[nn.Module]:
        if name in ENCODERS:
            raise ValueError(f"an encoder named {name!r} is already registered")
        ENCODERS[name] = (config_class, module_class)
        return module_class
    return decorate


def encoder_config(name: str, **overrides):
    """The config of encoder ``name``: the paper's defaults with ``overrides`` (dataclass fields)."""
    if name not in ENCODERS:
        raise ValueError(f"unknown encoder {name!r}; registered: {', '.join(sorted(ENCODERS))}")
    return replace(ENCODERS[name][0](), **overrides)


def encoder_module(name: str) -> str:
    """The module that defines encoder ``name`` (``"qrnn"`` -> ``"reproq.models.qrnn"``): what a run of it is bound
    to (:class:`reproq.train.checkpoint.Code`)."""
    encoder_config(name)  # an unknown name, said
    return ENCODERS[name][1].__module__


def build_encoder(name: str, config=None, **overrides) -> nn.Module:
    """A sequence encoder by name, from ``config`` (default: :func:`encoder_config`) with ``overrides``."""
    config = encoder_config(name) if config is None else config
    return ENCODERS[name][1](replace(config, **overrides))


def count_parameters(module: nn.Module) -> int:
    """Trainable parameters (the |θ| of Lei et al. Table 3: fixed word vectors do not count)."""
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
