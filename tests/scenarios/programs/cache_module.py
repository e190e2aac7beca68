"""Scenario (a): the module that keeps objects in a module-level dict."""


class Leaky:
    def __init__(self, n):
        self.n = n


cache = {}
