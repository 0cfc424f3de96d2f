import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `package com.shop.orders;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.*;
import static java.util.Objects.requireNonNull;
import com.shop.events.EventBus;

/** Places orders and notifies listeners. */
@Service
public class OrderService extends BaseService implements OrderApi, AutoCloseable {
    public static final int MAX_ITEMS = 50;
    private static final String PREFIX = "ord-", SUFFIX = "";
    private final List<Order> orders = new ArrayList<>();
    private EventBus bus;

    public OrderService(EventBus bus) {
        super("orders");
        this.bus = requireNonNull(bus);
    }

    @Override
    public Order place(Customer customer, List<Item> items) throws OrderException {
        if (items.size() > MAX_ITEMS) {
            throw new OrderException("too many items");
        }
        Order order = new Order(PREFIX + orders.size(), customer);
        for (Item item : items) {
            order.add(item.sku(), item.quantity());
        }
        orders.add(order);
        bus.publish(new Placed(order));
        Validator.check(order);
        return order;
    }

    @Override
    public void close() {
        orders.clear();
    }

    public interface Listener {
        void onPlaced(Placed event);
    }

    public enum Status {
        OPEN, SHIPPED;

        boolean isFinal() { return this == SHIPPED; }
    }

    public record Placed(Order order) implements Event {
        public Placed {
            requireNonNull(order);
        }
    }

    static class Validator {
        static void check(Order order) {
            order.lines().forEach(line -> line.validate());
        }
    }
}
`

describe('tags: Java', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('java', SOURCE)
  })

  it('finds every definition, qualifying nested types and their members', () => {
    assert.deepEqual(definitions(tags), [
      ['OrderService', 'OrderService', 'class', 10, 63, ''],
      ['MAX_ITEMS', 'OrderService.MAX_ITEMS', 'constant', 12, 12, 'OrderService'],
      ['PREFIX', 'OrderService.PREFIX', 'constant', 13, 13, 'OrderService'],
      ['SUFFIX', 'OrderService.SUFFIX', 'constant', 13, 13, 'OrderService'],
      ['orders', 'OrderService.orders', 'field', 14, 14, 'OrderService'],
      ['bus', 'OrderService.bus', 'field', 15, 15, 'OrderService'],
      ['OrderService', 'OrderService.OrderService', 'method', 17, 20, 'OrderService'],
      ['place', 'OrderService.place', 'method', 22, 35, 'OrderService'],
      ['close', 'OrderService.close', 'method', 37, 40, 'OrderService'],
      ['Listener', 'OrderService.Listener', 'interface', 42, 44, 'OrderService'],
      ['onPlaced', 'OrderService.Listener.onPlaced', 'method', 43, 43, 'OrderService.Listener'],
      ['Status', 'OrderService.Status', 'enum', 46, 50, 'OrderService'],
      ['OPEN', 'OrderService.Status.OPEN', 'constant', 47, 47, 'OrderService.Status'],
      ['SHIPPED', 'OrderService.Status.SHIPPED', 'constant', 47, 47, 'OrderService.Status'],
      ['isFinal', 'OrderService.Status.isFinal', 'method', 49, 49, 'OrderService.Status'],
      ['Placed', 'OrderService.Placed', 'class', 52, 56, 'OrderService'],
      ['Placed', 'OrderService.Placed.Placed', 'method', 53, 55, 'OrderService.Placed'],
      ['Validator', 'OrderService.Validator', 'class', 58, 62, 'OrderService'],
      ['check', 'OrderService.Validator.check', 'method', 59, 61, 'OrderService.Validator'],
    ])
  })

  it('gives signatures up to the body', () => {
    assert.equal(signatureOf(tags, 'OrderService'), '@Service public class OrderService extends BaseService implements OrderApi, AutoCloseable')
    assert.equal(signatureOf(tags, 'OrderService.place'), '@Override public Order place(Customer customer, List<Item> items) throws OrderException')
    assert.equal(signatureOf(tags, 'OrderService.OrderService'), 'public OrderService(EventBus bus)')
    assert.equal(signatureOf(tags, 'OrderService.MAX_ITEMS'), 'public static final int MAX_ITEMS = 50;')
    assert.equal(signatureOf(tags, 'OrderService.SUFFIX'), 'SUFFIX = ""')
    assert.equal(signatureOf(tags, 'OrderService.Listener.onPlaced'), 'void onPlaced(Placed event);')
    assert.equal(signatureOf(tags, 'OrderService.Placed'), 'public record Placed(Order order) implements Event')
  })

  it('reports invocations with receivers and constructions as calls, skipping locals', () => {
    assert.deepEqual(referencesIn(tags, 'OrderService.place'), [
      ['Override', 22, 'type', undefined],
      ['Order', 23, 'type', undefined],
      ['Customer', 23, 'type', undefined],
      ['List', 23, 'type', undefined],
      ['Item', 23, 'type', undefined],
      ['OrderException', 23, 'type', undefined],
      ['size', 24, 'call', 'items'],
      ['MAX_ITEMS', 24, 'reference', undefined],
      ['OrderException', 25, 'call', undefined],
      ['Order', 27, 'type', undefined],
      ['Order', 27, 'call', undefined],
      ['PREFIX', 27, 'reference', undefined],
      ['orders', 27, 'reference', undefined],
      ['size', 27, 'call', 'orders'],
      ['Item', 28, 'type', undefined],
      ['add', 29, 'call', 'order'],
      ['sku', 29, 'call', 'item'],
      ['quantity', 29, 'call', 'item'],
      ['orders', 31, 'reference', undefined],
      ['add', 31, 'call', 'orders'],
      ['bus', 32, 'reference', undefined],
      ['publish', 32, 'call', 'bus'],
      ['Placed', 32, 'call', undefined],
      ['Validator', 33, 'reference', undefined],
      ['check', 33, 'call', 'Validator'],
    ])
    assert.deepEqual(referencesIn(tags, 'OrderService.Validator.check'), [
      ['Order', 59, 'type', undefined],
      ['lines', 60, 'call', 'order'],
      ['forEach', 60, 'call', 'order.lines()'],
      ['validate', 60, 'call', 'line'],
    ])
    assert.deepEqual(referencesIn(tags, 'OrderService.OrderService'), [
      ['EventBus', 17, 'type', undefined],
      ['bus', 19, 'reference', 'this'],
      ['requireNonNull', 19, 'call', undefined],
    ])
  })

  it('reports extends and implements as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.line, r.enclosing])
    assert.deepEqual(inherits, [
      ['BaseService', 11, 'OrderService'],
      ['OrderApi', 11, 'OrderService'],
      ['AutoCloseable', 11, 'OrderService'],
      ['Event', 52, 'OrderService.Placed'],
    ])
  })

  it('reads class, wildcard and static imports, keeping package paths out of references', () => {
    assert.deepEqual(tags.imports, [
      { module: 'java.util', names: [{ name: 'ArrayList' }], line: 3, relative: false },
      { module: 'java.util', names: [{ name: 'List' }], line: 4, relative: false },
      { module: 'java.util.concurrent', names: [{ name: '*' }], line: 5, relative: false },
      { module: 'java.util.Objects', names: [{ name: 'requireNonNull' }], line: 6, relative: false },
      { module: 'com.shop.events', names: [{ name: 'EventBus' }], line: 7, relative: false },
    ])
    const topLevel = tags.references.filter((r) => r.enclosing === '').map((r) => [r.name, r.line, r.kind])
    assert.deepEqual(topLevel, [
      ['ArrayList', 3, 'import'],
      ['List', 4, 'import'],
      ['requireNonNull', 6, 'import'],
      ['EventBus', 7, 'import'],
    ])
  })
})
