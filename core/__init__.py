"""Positional Encoding Explorer core: pure numpy math and Plotly figure builders.

Nothing in this package imports streamlit, and importing it does not import torch.
"""
