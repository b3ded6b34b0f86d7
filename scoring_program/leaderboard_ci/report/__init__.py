"""Rendering of end-of-phase results: JSON, tables (CSV, Markdown, LaTeX), HTML, figures, comparisons.

Rule: modules here import only ``core``, ``tasks``, numpy and pandas, read results by attribute and never
import ``phase``; matplotlib is imported by ``report.plots`` alone.
"""
