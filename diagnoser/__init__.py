"""Diagnose ONNX export and ONNX Runtime errors against the knowledge base.

Public API: `diagnose(text=..., model=..., providers=...) -> Report`.
"""
from diagnoser.api import diagnose
from diagnoser.errors import UserInputError
from diagnoser.report import SCHEMA_VERSION, Diagnosis, Evidence, Finding, Report

__all__ = ["SCHEMA_VERSION", "Diagnosis", "Evidence", "Finding", "Report", "UserInputError", "diagnose"]
