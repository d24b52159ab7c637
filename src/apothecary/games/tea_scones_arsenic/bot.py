"""Placeholder: replaced below."""
