"""Model analysis: open model files safely, read graphs and weights, ask the installed runtime."""
