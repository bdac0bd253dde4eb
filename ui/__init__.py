"""Streamlit-side helpers shared by app.py and the pages: the sidebar, URL state, figure output."""
