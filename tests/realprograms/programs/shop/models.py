from django.db import models


class Customer(models.Model):
    name = models.CharField(max_length=50)

    class Meta:
        app_label = "shop"


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
    item = models.CharField(max_length=50)
    quantity = models.IntegerField()

    class Meta:
        app_label = "shop"
