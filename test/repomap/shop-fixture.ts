import { syncIndex } from '../../src/core/index/index.js'
import { createGitRepo, type GitFixture } from '../helpers/git-fixture.js'

/**
 * A small Python shop whose hub is `shop/money.py`'s `Money`, used by every service; `shop/db.py`'s
 * `Database` comes next. Plugins add enough definitions that every tested budget is the limit.
 */
export const SHOP_FILES: Record<string, string> = {
  'shop/money.py': `from decimal import Decimal


class Money:
    """An amount in one currency."""

    def __init__(self, amount: Decimal, currency: str = "EUR"):
        self.amount = amount
        self.currency = currency

    def add(self, other: "Money") -> "Money":
        return Money(self.amount + other.amount, self.currency)

    def times(self, factor: int) -> "Money":
        return Money(self.amount * factor, self.currency)


def zero(currency: str = "EUR") -> Money:
    return Money(Decimal(0), currency)
`,
  'shop/db.py': `class Database:
    def __init__(self, url: str):
        self.url = url

    def query(self, sql: str, *params) -> list:
        return []

    def execute(self, sql: str, *params) -> int:
        return 0


def connect(url: str) -> Database:
    return Database(url)
`,
  'shop/catalog.py': `from shop.money import Money
from shop.db import Database


class Product:
    def __init__(self, sku: str, price: Money):
        self.sku = sku
        self.price = price


def find_product(db: Database, sku: str) -> Product:
    row = db.query("select * from products where sku = ?", sku)
    return Product(sku, Money(row[0], "EUR"))
`,
  'shop/orders.py': `from shop.money import Money, zero
from shop.db import Database
from shop.catalog import Product, find_product


class Order:
    def __init__(self, db: Database):
        self.db = db
        self.lines = []

    def add_line(self, product: Product, quantity: int) -> None:
        self.lines.append((product, quantity))

    def total(self) -> Money:
        result = zero()
        for product, quantity in self.lines:
            result = result.add(product.price.times(quantity))
        return result

    def save(self) -> int:
        return self.db.execute("insert into orders values (?)", self.total().amount)


def order_of(db: Database, skus: list) -> Order:
    order = Order(db)
    for sku in skus:
        order.add_line(find_product(db, sku), 1)
    return order
`,
  'shop/billing.py': `from shop.money import Money, zero
from shop.db import Database
from shop.orders import Order


class Invoice:
    def __init__(self, order: Order):
        self.order = order

    def amount_due(self) -> Money:
        return self.order.total().add(zero())


def bill(db: Database, order: Order) -> Invoice:
    db.execute("insert into invoices values (?)", order.total().amount)
    return Invoice(order)


def refund(db: Database, amount: Money) -> Money:
    db.execute("insert into refunds values (?)", amount.amount)
    return amount.times(-1)
`,
  'web/handlers.py': `from shop.db import connect
from shop.orders import order_of
from shop.billing import bill


def create_order(request: dict) -> dict:
    db = connect(request["db"])
    order = order_of(db, request["skus"])
    order.save()
    return {"invoice": bill(db, order).amount_due().amount}


def health(request: dict) -> dict:
    return {"ok": True}
`,
}

/** Plugins: each defines a class with methods and a few functions, each using the hub lightly. */
for (let i = 0; i < 12; i++) {
  SHOP_FILES[`plugins/plugin_${String(i).padStart(2, '0')}.py`] = `from shop.money import Money


class DiscountRule${i}:
    def applies_to(self, order_total: Money) -> bool:
        return order_total.amount > ${i * 10}

    def discount_for(self, order_total: Money) -> Money:
        return order_total.times(${i})


def describe_rule_${i}(rule: DiscountRule${i}) -> str:
    return "rule ${i}"


def register_rule_${i}(registry: dict) -> None:
    registry["rule_${i}"] = DiscountRule${i}()
`
}

/**
 * The shop committed and indexed eight files at a time: a larger first sync would start the
 * worker pool, whose `.ts` entry the test runner's loader does not reach.
 */
export async function createShopRepo(files: Record<string, string> = SHOP_FILES): Promise<GitFixture> {
  const repo = createGitRepo()
  const entries = Object.entries(files)
  for (let start = 0; start < entries.length; start += 8) {
    repo.write(Object.fromEntries(entries.slice(start, start + 8)))
    repo.commit(`files ${start}`)
    await syncIndex(repo.dir, { warn: () => {} })
  }
  return repo
}
