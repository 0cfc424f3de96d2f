import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `# frozen_string_literal: true

require "json"
require_relative "../support/clock"
require File.expand_path("config", __dir__)

module Billing
  VERSION = "2.1.0"

  # Raised when an invoice cannot be settled.
  class Error < StandardError; end

  class Invoice < Base::Record
    # Line items and totals.
    include Comparable
    extend Forwardable

    attr_accessor :number, :lines
    TAX_RATE = 0.2

    class << self
      def load(path, format: :json)
        data = JSON.parse(File.read(path))
        from_hash(data).tap { |invoice| invoice.validate! }
      end

      private

      def from_hash(hash)
        new(hash.fetch("number"), hash["lines"] || [])
      end
    end

    def self.empty = new(0, [])

    def initialize(number, lines)
      @number = number
      @lines = lines
    end

    def total
      sum = 0
      lines.each do |line, index|
        sum += line.amount * (1 + TAX_RATE)
        logger.debug("line #{index}")
      end
      Money.new(sum, Currency::EUR)
    end

    def <=>(other)
      total <=> other.total
    end

    alias amount total
  end
end

def settle(invoice, clock = Clock.new)
  invoice.paid_at = clock.now
  Billing::Ledger.record(invoice)
end
`

describe('tags: Ruby', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('ruby', SOURCE)
  })

  it('finds modules, classes, methods, singleton methods and constants', () => {
    assert.deepEqual(definitions(tags), [
      ['Billing', 'Billing', 'module', 7, 56, ''],
      ['VERSION', 'Billing.VERSION', 'constant', 8, 8, 'Billing'],
      ['Error', 'Billing.Error', 'class', 11, 11, 'Billing'],
      ['Invoice', 'Billing.Invoice', 'class', 13, 55, 'Billing'],
      ['TAX_RATE', 'Billing.Invoice.TAX_RATE', 'constant', 19, 19, 'Billing.Invoice'],
      ['load', 'Billing.Invoice.load', 'method', 22, 25, 'Billing.Invoice'],
      ['from_hash', 'Billing.Invoice.from_hash', 'method', 29, 31, 'Billing.Invoice'],
      ['empty', 'Billing.Invoice.empty', 'method', 34, 34, 'Billing.Invoice'],
      ['initialize', 'Billing.Invoice.initialize', 'method', 36, 39, 'Billing.Invoice'],
      ['total', 'Billing.Invoice.total', 'method', 41, 48, 'Billing.Invoice'],
      ['<=>', 'Billing.Invoice.<=>', 'method', 50, 52, 'Billing.Invoice'],
      ['amount', 'Billing.Invoice.amount', 'method', 54, 54, 'Billing.Invoice'],
      ['settle', 'settle', 'function', 58, 61, ''],
    ])
  })

  it('ends signatures with the header, before comments, `;` and bodies', () => {
    assert.equal(signatureOf(tags, 'Billing.Error'), 'class Error < StandardError')
    assert.equal(signatureOf(tags, 'Billing.Invoice'), 'class Invoice < Base::Record')
    assert.equal(signatureOf(tags, 'Billing.Invoice.load'), 'def load(path, format: :json)')
    assert.equal(signatureOf(tags, 'Billing.Invoice.empty'), 'def self.empty')
    assert.equal(signatureOf(tags, 'Billing.Invoice.total'), 'def total')
    assert.equal(signatureOf(tags, 'settle'), 'def settle(invoice, clock = Clock.new)')
    assert.equal(signatureOf(tags, 'Billing.VERSION'), 'VERSION = "2.1.0"')
  })

  it('reports calls with receivers and skips parameters, block parameters and locals', () => {
    assert.deepEqual(referencesIn(tags, 'Billing.Invoice.load'), [
      ['JSON', 23, 'reference', undefined],
      ['parse', 23, 'call', 'JSON'],
      ['File', 23, 'reference', undefined],
      ['read', 23, 'call', 'File'],
      ['from_hash', 24, 'call', undefined],
      ['tap', 24, 'call', 'from_hash(data)'],
      ['validate!', 24, 'call', 'invoice'],
    ])
    assert.deepEqual(referencesIn(tags, 'Billing.Invoice.total'), [
      ['lines', 43, 'call', undefined],
      ['each', 43, 'call', 'lines'],
      ['amount', 44, 'call', 'line'],
      ['TAX_RATE', 44, 'reference', undefined],
      ['logger', 45, 'call', undefined],
      ['debug', 45, 'call', 'logger'],
      ['Money', 47, 'reference', undefined],
      ['new', 47, 'call', 'Money'],
      ['Currency', 47, 'reference', undefined],
      ['EUR', 47, 'reference', 'Currency'],
    ])
    assert.deepEqual(referencesIn(tags, 'settle'), [
      ['Clock', 58, 'reference', undefined],
      ['new', 58, 'call', 'Clock'],
      ['paid_at', 59, 'call', 'invoice'],
      ['now', 59, 'call', 'clock'],
      ['Billing', 60, 'reference', undefined],
      ['Ledger', 60, 'reference', 'Billing'],
      ['record', 60, 'call', 'Billing::Ledger'],
    ])
  })

  it('reports superclasses and mixins as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.enclosing, r.receiver])
    assert.deepEqual(inherits, [
      ['StandardError', 'Billing.Error', undefined],
      ['Record', 'Billing.Invoice', 'Base'],
      ['Comparable', 'Billing.Invoice', undefined],
      ['Forwardable', 'Billing.Invoice', undefined],
    ])
  })

  it('reads require and require_relative with literal paths, not computed ones', () => {
    assert.deepEqual(tags.imports, [
      { module: 'json', names: [], line: 3, relative: false },
      { module: '../support/clock', names: [], line: 4, relative: true },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [['json', 3], ['../support/clock', 4]])
    // `require` itself is an ordinary call of Kernel#require.
    const topLevel = tags.references.filter((r) => r.enclosing === '' && r.kind !== 'import').map((r) => [r.name, r.line, r.kind, r.receiver])
    assert.deepEqual(topLevel, [
      ['require', 3, 'call', undefined],
      ['require_relative', 4, 'call', undefined],
      ['require', 5, 'call', undefined],
      ['File', 5, 'reference', undefined],
      ['expand_path', 5, 'call', 'File'],
      ['__dir__', 5, 'call', undefined],
    ])
  })

  it('qualifies nested scopes and top-level singleton methods, and ends one-line headers at `;`', async () => {
    const small = await tagsOf('ruby', [
      'class Api::Client; end',
      'def Api.connect(url); Client.new(url); end',
      'module Api',
      '  class Client # HTTP',
      '    def get(path) = request(:get, path)',
      '  end',
      'end',
    ].join('\n'))
    assert.deepEqual(definitions(small), [
      ['Client', 'Api.Client', 'class', 1, 1, 'Api'],
      ['connect', 'Api.connect', 'method', 2, 2, 'Api'],
      ['Api', 'Api', 'module', 3, 7, ''],
      ['Client', 'Api.Client', 'class', 4, 6, 'Api'],
      ['get', 'Api.Client.get', 'method', 5, 5, 'Api.Client'],
    ])
    assert.deepEqual(small.symbols.map((s) => s.signature), [
      'class Api::Client', 'def Api.connect(url)', 'module Api', 'class Client', 'def get(path)',
    ])
  })
})
