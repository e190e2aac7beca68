"""The demo service's response cache: the module-level dict that leaks."""


class Response:
    __slots__ = ("request_id", "body")

    def __init__(self, request_id, body):
        self.request_id = request_id
        self.body = body


cache = {}
