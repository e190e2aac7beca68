"""A login service that keeps every session it ever created.

The leak the app's tests look for: `_sessions` is a module-level dict that
is never pruned, so every Session (and its user and token strings) stays
alive through sys.modules['leaky_registry'] -> module -> __dict__ ->
['_sessions'] -> dict -> ['user-N'] -> Session.
"""


class Session:
    def __init__(self, user, token):
        self.user = user
        self.token = token


_sessions = {}  # the bug: never pruned


def login(number):
    session = Session("user-%d" % number, "token-%d" % (number * 7919))
    _sessions[session.user] = session
    return session.user
