"""Learned judgements (DESIGN §8.2): small models over features from the bundled embedder plus cheap text
features, trained on the labelled corpora in ``data/labelled/`` by the scripts in ``train/``.

Inference is numpy only; the weights ship in ``judge/weights/*.npz`` (no download). Each model file records
its classes, feature layout and the scores it reached on its corpus' fixed test split, and a test checks the
shipped weights still reproduce those scores.
"""
