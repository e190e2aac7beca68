"""Django: requests create orders in a small app and list them, through
Django's WSGI handler (what a WSGI server calls), URL routing, middleware,
the ORM and an in-memory SQLite database. (Not django.test.Client: Django
3.2's test client reconnects a signal receiver on every request, and each
connect adds a weakref.finalize that nothing removes: 3 registry entries per
request, a real leak of its own that refscope shows, but not this test's.)
The planted leaks, one per run (shop/views.py):
- recent_orders: the view keeps every Order in a module-level dict
  (shop.views.RECENT_ORDERS);
- strong_receiver: the view connects an OrderNotifier's method to a signal
  with weak=False and never disconnects it, so the signal's receivers list
  keeps every notifier (and its Order).
Django's own caches (URL resolver, query compilation, translation) warm up
alongside them."""
import django
from django.conf import settings
from django.urls import path

from real_common import Run

LEAKS = {"recent_orders": {"type": "shop.models.Order", "holder": "RECENT_ORDERS"},
         "strong_receiver": {"type": "shop.views.OrderNotifier", "holder": "receivers"}}
run = Run(LEAKS)
settings.configure(
    DEBUG=False, SECRET_KEY="refscope-test", ALLOWED_HOSTS=["*"], ROOT_URLCONF=__name__,
    INSTALLED_APPS=["django.contrib.contenttypes", "django.contrib.auth", "shop"],
    MIDDLEWARE=["django.middleware.common.CommonMiddleware"],
    DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    USE_TZ=True)
django.setup()

import io  # noqa: E402
import urllib.parse  # noqa: E402

from django.core.handlers.wsgi import WSGIHandler  # noqa: E402  (needs settings)
from django.db import connection  # noqa: E402

from shop import views  # noqa: E402
from shop.models import Customer, Order  # noqa: E402

urlpatterns = [path("order/", views.create_order), path("orders/", views.list_orders)]
views.LEAK = run.leak
with connection.schema_editor() as editor:
    editor.create_model(Customer)
    editor.create_model(Order)
application = WSGIHandler()
counter = [0]


def get(path, **query):
    environ = {"REQUEST_METHOD": "GET", "PATH_INFO": path, "QUERY_STRING": urllib.parse.urlencode(query),
               "SERVER_NAME": "shop.example", "SERVER_PORT": "80", "wsgi.url_scheme": "http",
               "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO()}
    status = []
    body = b"".join(application(environ, lambda s, headers: status.append(s)))
    assert status == ["200 OK"], (status, body[:300])
    return body


def work():
    for _ in range(60):
        counter[0] += 1
        get("/order/", customer=f"c{counter[0] % 7}", item=f"item{counter[0]}", quantity=counter[0] % 5 + 1)
        if counter[0] % 10 == 0:
            get("/orders/")


run.rounds(work)
run.finish()
