import json

from django.dispatch import Signal
from django.http import JsonResponse

from shop.models import Customer, Order

LEAK = None  # the planted leak's name (django_shop.py), None for a clean run
# recent_orders: every order created is remembered "for the dashboard".
RECENT_ORDERS = {}
# strong_receiver: a notifier per order, connected for good.
order_shipped = Signal()


class OrderNotifier:
    def __init__(self, order):
        self.order = order

    def on_shipped(self, sender, **kwargs):
        return self.order.pk


def create_order(request):
    customer, _ = Customer.objects.get_or_create(name=request.GET.get("customer", "anon"))
    order = Order.objects.create(customer=customer, item=request.GET.get("item", "tea"),
                                 quantity=int(request.GET.get("quantity", "1")))
    if LEAK == "recent_orders":
        RECENT_ORDERS[order.pk] = order
    elif LEAK == "strong_receiver":
        order_shipped.connect(OrderNotifier(order).on_shipped, weak=False)
    return JsonResponse({"id": order.pk, "customer": customer.name})


def list_orders(request):
    orders = Order.objects.select_related("customer").order_by("-id")[:20]
    return JsonResponse({"orders": [[o.item, o.customer.name, o.quantity] for o in orders]})
