import assert from 'node:assert/strict'
import { definitions, referencesIn, signatureOf, tagsOf, type Tags } from './tags-helpers.js'

const SOURCE = `// Package server runs a small key-value HTTP service.
package server

import (
	"context"
	"fmt"
	log "github.com/sirupsen/logrus"
	_ "net/http/pprof"
	. "strings"
	"sync"
)

import "errors"

const DefaultAddr = ":8080"

const (
	maxKeys, maxValue = 1024, 4096
	modeRead          = iota
)

var ErrNotFound = errors.New("not found")

// Store is what the server keeps its values in.
type Store interface {
	Get(key string) (string, error)
	Put(key, value string) error
	fmt.Stringer
}

type Server struct {
	mu      sync.Mutex
	store   Store
	Addr    string
	*Logger
}

type (
	Handler func(ctx context.Context, key string) error
	Keys    = []string
)

func New(addr string, store Store) *Server {
	if addr == "" {
		addr = DefaultAddr
	}
	return &Server{Addr: addr, store: store}
}

func (s *Server) Lookup(ctx context.Context, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	value, err := s.store.Get(ToLower(key))
	if err != nil {
		log.Warnf("lookup %s: %v", key, err)
		return "", fmt.Errorf("lookup: %w", ErrNotFound)
	}
	for i, part := range Split(value, ",") {
		_ = i
		fmt.Println(part)
	}
	return value, validate(ctx, value)
}

func (s Server) String() string { return s.Addr }

func validate(ctx context.Context, value string) error {
	var limit = maxValue
	if len(value) > limit {
		return errors.New("too long")
	}
	return ctx.Err()
}
`

describe('tags: Go', () => {
  let tags: Tags

  before(async () => {
    tags = await tagsOf('go', SOURCE)
  })

  it('finds every definition, with receivers qualifying methods', () => {
    assert.deepEqual(definitions(tags), [
      ['DefaultAddr', 'DefaultAddr', 'constant', 15, 15, ''],
      ['maxKeys', 'maxKeys', 'constant', 18, 18, ''],
      ['maxValue', 'maxValue', 'constant', 18, 18, ''],
      ['modeRead', 'modeRead', 'constant', 19, 19, ''],
      ['ErrNotFound', 'ErrNotFound', 'variable', 22, 22, ''],
      ['Store', 'Store', 'interface', 25, 29, ''],
      ['Get', 'Store.Get', 'method', 26, 26, 'Store'],
      ['Put', 'Store.Put', 'method', 27, 27, 'Store'],
      ['Server', 'Server', 'struct', 31, 36, ''],
      ['mu', 'Server.mu', 'field', 32, 32, 'Server'],
      ['store', 'Server.store', 'field', 33, 33, 'Server'],
      ['Addr', 'Server.Addr', 'field', 34, 34, 'Server'],
      ['Handler', 'Handler', 'type', 39, 39, ''],
      ['Keys', 'Keys', 'type', 40, 40, ''],
      ['New', 'New', 'function', 43, 48, ''],
      ['Lookup', 'Server.Lookup', 'method', 50, 63, 'Server'],
      ['String', 'Server.String', 'method', 65, 65, 'Server'],
      ['validate', 'validate', 'function', 67, 73, ''],
    ])
  })

  it('gives signatures up to the body', () => {
    assert.equal(signatureOf(tags, 'Server.Lookup'), 'func (s *Server) Lookup(ctx context.Context, key string) (string, error)')
    assert.equal(signatureOf(tags, 'Server.String'), 'func (s Server) String() string')
    assert.equal(signatureOf(tags, 'Server'), 'type Server struct')
    assert.equal(signatureOf(tags, 'Store'), 'type Store interface')
    assert.equal(signatureOf(tags, 'Store.Put'), 'Put(key, value string) error')
    assert.equal(signatureOf(tags, 'DefaultAddr'), 'const DefaultAddr = ":8080"')
    assert.equal(signatureOf(tags, 'modeRead'), 'modeRead = iota')
    assert.equal(signatureOf(tags, 'Keys'), 'Keys = []string')
  })

  it('reports calls with their receivers and skips parameters and locals', () => {
    assert.deepEqual(referencesIn(tags, 'Server.Lookup'), [
      ['Server', 50, 'type', undefined],
      ['Context', 50, 'type', 'context'],
      ['string', 50, 'type', undefined],
      ['string', 50, 'type', undefined],
      ['error', 50, 'type', undefined],
      ['mu', 51, 'reference', 's'],
      ['Lock', 51, 'call', 's.mu'],
      ['mu', 52, 'reference', 's'],
      ['Unlock', 52, 'call', 's.mu'],
      ['store', 53, 'reference', 's'],
      ['Get', 53, 'call', 's.store'],
      ['ToLower', 53, 'call', undefined],
      ['log', 55, 'reference', undefined],
      ['Warnf', 55, 'call', 'log'],
      ['fmt', 56, 'reference', undefined],
      ['Errorf', 56, 'call', 'fmt'],
      ['ErrNotFound', 56, 'reference', undefined],
      ['Split', 58, 'call', undefined],
      ['fmt', 60, 'reference', undefined],
      ['Println', 60, 'call', 'fmt'],
      ['validate', 62, 'call', undefined],
    ])
    assert.deepEqual(referencesIn(tags, 'validate'), [
      ['Context', 67, 'type', 'context'],
      ['string', 67, 'type', undefined],
      ['error', 67, 'type', undefined],
      ['maxValue', 68, 'reference', undefined],
      ['len', 69, 'call', undefined],
      ['errors', 70, 'reference', undefined],
      ['New', 70, 'call', 'errors'],
      ['Err', 72, 'call', 'ctx'],
    ])
  })

  it('reports embedded types as inheritance', () => {
    const inherits = tags.references.filter((r) => r.kind === 'inherit').map((r) => [r.name, r.enclosing, r.receiver])
    assert.deepEqual(inherits, [
      ['Stringer', 'Store', 'fmt'],
      ['Logger', 'Server', undefined],
    ])
  })

  it('reads single, grouped, aliased, blank and dot imports', () => {
    assert.deepEqual(tags.imports, [
      { module: 'context', names: [], line: 5, relative: false },
      { module: 'fmt', names: [], line: 6, relative: false },
      { module: 'github.com/sirupsen/logrus', names: [], alias: 'log', line: 7, relative: false },
      { module: 'net/http/pprof', names: [], alias: '_', line: 8, relative: false },
      { module: 'strings', names: [{ name: '*' }], line: 9, relative: false },
      { module: 'sync', names: [], line: 10, relative: false },
      { module: 'errors', names: [], line: 13, relative: false },
    ])
    const imported = tags.references.filter((r) => r.kind === 'import').map((r) => [r.name, r.line])
    assert.deepEqual(imported, [
      ['context', 5], ['fmt', 6], ['github.com/sirupsen/logrus', 7], ['net/http/pprof', 8],
      ['strings', 9], ['sync', 10], ['errors', 13],
    ])
  })
})
