"""Test helpers shipped with capjudge: a scripted OpenAI-compatible server (see :mod:`capjudge.testing.server`)."""
