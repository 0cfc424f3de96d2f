import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `"""Order service: validates and persists orders."""
import logging
import os.path as osp, sys
from .models import Order, Customer as Client
from ..storage import repo
from typing import *

LOG = logging.getLogger(__name__)
MAX_ITEMS = 50
default_region = "eu"


def retry(times):
    def decorate(fn):
        def wrapper(*args, **kwargs):
            for attempt in range(times):
                try:
                    return fn(*args, **kwargs)
                except IOError as err:
                    LOG.warning("retry %d: %s", attempt, err)
            raise RuntimeError("gave up")
        return wrapper
    return decorate


@dataclass
class Line(BaseLine, base.Serializable):
    sku: str
    quantity: int = 1

    def total(self, prices: Dict[str, float]) -> float:
        return prices[self.sku] * self.quantity


class OrderService(Service):
    """Creates orders for customers."""

    timeout = 30

    class Error(Exception):
        pass

    def __init__(self, repo, clock=None):
        self.repo = repo
        self.clock = clock or default_clock()

    @retry(3)
    @staticmethod
    def place(self, customer: Client, lines: List[Line]) -> Order:
        if len(lines) > MAX_ITEMS:
            raise OrderService.Error("too many lines")
        order = Order(customer=customer, region=default_region)
        for line in lines:
            order.add(line.sku, line.total(self.prices))
        self.repo.save(order)
        LOG.info("placed %s", order.id)
        return order

    @property
    def prices(self):
        return load_prices(osp.join(os.getcwd(), "prices.json"))


def load_prices(path):
    with open(path) as fh:
        data = fh.read()
    return {k: float(v) for k, v in parse(data)}
`

describe('tags: Python', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('python', SOURCE)
  })

  it('finds classes, methods, nested functions, fields and module-level names', () => {
    assert.deepEqual(definitions(tags), [
      ['LOG', 'LOG', 'constant', 8, 8, ''],
      ['MAX_ITEMS', 'MAX_ITEMS', 'constant', 9, 9, ''],
      ['default_region', 'default_region', 'variable', 10, 10, ''],
      ['retry', 'retry', 'function', 13, 23, ''],
      ['decorate', 'retry.decorate', 'function', 14, 22, 'retry'],
      ['wrapper', 'retry.decorate.wrapper', 'function', 15, 21, 'retry.decorate'],
      ['Line', 'Line', 'class', 26, 32, ''],
      ['sku', 'Line.sku', 'field', 28, 28, 'Line'],
      ['quantity', 'Line.quantity', 'field', 29, 29, 'Line'],
      ['total', 'Line.total', 'method', 31, 32, 'Line'],
      ['OrderService', 'OrderService', 'class', 35, 61, ''],
      ['timeout', 'OrderService.timeout', 'field', 38, 38, 'OrderService'],
      ['Error', 'OrderService.Error', 'class', 40, 41, 'OrderService'],
      ['__init__', 'OrderService.__init__', 'method', 43, 45, 'OrderService'],
      ['place', 'OrderService.place', 'method', 47, 57, 'OrderService'],
      ['prices', 'OrderService.prices', 'method', 59, 61, 'OrderService'],
      ['load_prices', 'load_prices', 'function', 64, 67, ''],
    ])
  })

  it('starts signatures of decorated definitions at def/class and ends them before the body', () => {
    assert.equal(signatureOf(tags, 'OrderService.place'), 'def place(self, customer: Client, lines: List[Line]) -> Order')
    assert.equal(signatureOf(tags, 'Line'), 'class Line(BaseLine, base.Serializable)')
    assert.equal(signatureOf(tags, 'OrderService.prices'), 'def prices(self)')
    assert.equal(signatureOf(tags, 'retry.decorate.wrapper'), 'def wrapper(*args, **kwargs)')
    assert.equal(signatureOf(tags, 'Line.quantity'), 'quantity: int = 1')
    assert.equal(signatureOf(tags, 'LOG'), 'LOG = logging.getLogger(__name__)')
    const place = tags.symbols.find((s) => s.qualifiedName === 'OrderService.place')!
    assert.equal(place.column, 8)
  })

  it('reports calls with receivers, types and decorators, and skips parameters and locals', () => {
    // Decorators are evaluated in the scope around the definition they decorate.
    assert.deepEqual(
      referencesIn(tags, 'OrderService').filter(([name]) => name === 'retry' || name === 'staticmethod'),
      [
        ['retry', 47, 'call', undefined],
        ['staticmethod', 48, 'reference', undefined],
      ],
    )
    assert.deepEqual(referencesIn(tags, 'OrderService.place'), [
      ['Client', 49, 'type', undefined],
      ['List', 49, 'type', undefined],
      ['Line', 49, 'type', undefined],
      ['Order', 49, 'type', undefined],
      ['len', 50, 'call', undefined],
      ['MAX_ITEMS', 50, 'reference', undefined],
      ['OrderService', 51, 'reference', undefined],
      ['Error', 51, 'call', 'OrderService'],
      ['Order', 52, 'call', undefined],
      ['default_region', 52, 'reference', undefined],
      ['add', 54, 'call', 'order'],
      ['sku', 54, 'reference', 'line'],
      ['total', 54, 'call', 'line'],
      ['prices', 54, 'reference', 'self'],
      ['repo', 55, 'reference', 'self'],
      ['save', 55, 'call', 'self.repo'],
      ['LOG', 56, 'reference', undefined],
      ['info', 56, 'call', 'LOG'],
      ['id', 56, 'reference', 'order'],
    ])
    assert.deepEqual(referencesIn(tags, 'retry.decorate.wrapper'), [
      ['range', 16, 'call', undefined],
      ['IOError', 19, 'reference', undefined],
      ['LOG', 20, 'reference', undefined],
      ['warning', 20, 'call', 'LOG'],
      ['RuntimeError', 21, 'call', undefined],
    ])
    assert.deepEqual(referencesIn(tags, 'load_prices'), [
      ['open', 65, 'call', undefined],
      ['read', 66, 'call', 'fh'],
      ['float', 67, 'call', undefined],
      ['parse', 67, 'call', undefined],
    ])
  })

  it("evaluates decorators outside the definition: a parameter does not hide the decorator's name", async () => {
    const nested = await tagsOf(
      'python',
      ['import click', '', '@click.group()', 'def ship():', '    pass', '', '', '@ship.command()', "@click.argument('ship')", 'def ship_move(ship):', '    return ship', ''].join('\n'),
    )
    assert.deepEqual(referencesIn(nested, ''), [
      ['click', 1, 'import', undefined],
      ['click', 3, 'reference', undefined],
      ['group', 3, 'call', 'click'],
      ['ship', 8, 'reference', undefined],
      ['command', 8, 'call', 'ship'],
      ['click', 9, 'reference', undefined],
      ['argument', 9, 'call', 'click'],
    ])
    assert.deepEqual(referencesIn(nested, 'ship_move'), [])
  })

  it('reports base classes, plain and qualified, as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.enclosing, r.receiver])
    assert.deepEqual(inherits, [
      ['BaseLine', 'Line', undefined],
      ['Serializable', 'Line', 'base'],
      ['Service', 'OrderService', undefined],
      ['Exception', 'OrderService.Error', undefined],
    ])
  })

  it('reads plain, aliased, relative and wildcard imports', () => {
    assert.deepEqual(tags.imports, [
      { module: 'logging', names: [], line: 2, relative: false },
      { module: 'os.path', names: [], alias: 'osp', line: 3, relative: false },
      { module: 'sys', names: [], line: 3, relative: false },
      { module: '.models', names: [{ name: 'Order' }, { name: 'Customer', alias: 'Client' }], line: 4, relative: true },
      { module: '..storage', names: [{ name: 'repo' }], line: 5, relative: true },
      { module: 'typing', names: [{ name: '*' }], line: 6, relative: false },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [
      ['logging', 2], ['os.path', 3], ['sys', 3], ['Order', 4], ['Customer', 4], ['repo', 5], ['typing', 6],
    ])
  })

  it('keeps names bound at module level under try as variables and skips loop targets and locals', async () => {
    const source = [
      'try:',
      '    import ujson as json',
      'except ImportError:',
      '    json = None',
      '    HAS_UJSON, fast = False, None',
      '    TIMEOUT = 5',
      'for key, value in pairs:',
      '    print(key, value)',
      'from . import sibling',
      'def f[T](x: T) -> T:',
      '    y = x',
      '    return y',
    ].join('\n')
    const small = await tagsOf('python', source)
    assert.deepEqual(definitions(small), [
      ['json', 'json', 'variable', 4, 4, ''],
      ['HAS_UJSON', 'HAS_UJSON', 'variable', 5, 5, ''],
      ['fast', 'fast', 'variable', 5, 5, ''],
      ['TIMEOUT', 'TIMEOUT', 'constant', 6, 6, ''],
      ['f', 'f', 'function', 10, 12, ''],
    ])
    assert.deepEqual(small.references.map((r) => [r.name, r.line, r.kind]), [
      ['ujson', 2, 'import'],
      ['ImportError', 3, 'reference'],
      ['pairs', 7, 'reference'],
      ['print', 8, 'call'],
      ['sibling', 9, 'import'],
    ])
    assert.deepEqual(small.imports, [
      { module: 'ujson', names: [], alias: 'json', line: 2, relative: false },
      { module: '.', names: [{ name: 'sibling' }], line: 9, relative: true },
    ])
  })
})
