"""Files in and out: uploads read safely, generated code, downloads. Imports core.schemes only."""
