import json

from django.http import JsonResponse

from shop.models import Customer, Order

LEAK = False
# The planted leak: every order created is remembered "for the dashboard".
RECENT_ORDERS = {}


def create_order(request):
    customer, _ = Customer.objects.get_or_create(name=request.GET.get("customer", "anon"))
    order = Order.objects.create(customer=customer, item=request.GET.get("item", "tea"),
                                 quantity=int(request.GET.get("quantity", "1")))
    if LEAK:
        RECENT_ORDERS[order.pk] = order
    return JsonResponse({"id": order.pk, "customer": customer.name})


def list_orders(request):
    orders = Order.objects.select_related("customer").order_by("-id")[:20]
    return JsonResponse({"orders": [[o.item, o.customer.name, o.quantity] for o in orders]})
