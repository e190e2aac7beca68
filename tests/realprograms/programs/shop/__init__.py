"""A small Django app for django_shop.py: one model, two views."""
