import assert from 'node:assert/strict'
import { createExtractor, type Chunk, type Extractor, type FileArtifact, type LanguageId } from '../../src/core/parse/index.js'
import { MAX_CHUNK_CHARS } from '../../src/core/parse/chunk/index.js'

let extractor: Extractor

async function extract(source: string, language: LanguageId): Promise<FileArtifact> {
  await extractor.prepare(language)
  return extractor.extract(source, language)
}

/** Where each chunk is and what it is about. */
function outline(chunks: Chunk[]): string[] {
  return chunks.map((c) => `${c.startLine}-${c.endLine} ${c.kind} ${c.qualifiedName}`)
}

function lines(source: string, first: number, last: number): string {
  return source.split('\n').slice(first - 1, last).join('\n')
}

const PYTHON = `"""Inventory storage."""
import json
import os.path
from dataclasses import dataclass, field as dc_field
from typing import Optional

MAX_ITEMS = 1000


@dataclass
class Item:
    name: str
    quantity: int = 0
    tags: list[str] = dc_field(default_factory=list)


class Inventory(Base):
    """Keeps items on disk as JSON, one file per inventory."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.items: dict[str, Item] = {}
        self.dirty = False
        self.history: list[str] = []

    @property
    def size(self) -> int:
        return len(self.items)

    @property
    def empty(self) -> bool:
        return not self.items

    @staticmethod
    @cached(maxsize=MAX_ITEMS)
    def path_for(root: str, name: str) -> str:
        """Where the inventory \`name\` lives under \`root\`."""
        base = os.path.abspath(root)
        return os.path.join(base, name + '.json')

    def load(self, name: str) -> Optional[Item]:
        """Reads one inventory file; None when it does not exist."""
        target = self.path_for(self.root, name)
        if not os.path.exists(target):
            return None
        with open(target, encoding='utf-8') as handle:
            raw = json.load(handle)
        for entry in raw.get('items', []):
            item = Item(entry['name'], entry.get('quantity', 0), entry.get('tags', []))
            self.items[item.name] = item
        self.history.append(f'load {name}')
        return self.items.get(name)

    def save(self, name: str) -> None:
        # Writes atomically: a temporary file first, then a rename over the old one.
        target = self.path_for(self.root, name)
        payload = {'items': [vars(item) for item in self.items.values()]}
        temporary = target + '.tmp'
        with open(temporary, 'w', encoding='utf-8') as handle:
            json.dump(payload, handle, indent=2, sort_keys=True)
        os.replace(temporary, target)
        self.dirty = False
        self.history.append(f'save {name}')


def summarize(inventory: Inventory) -> str:
    return ', '.join(sorted(inventory.items))
`

const TYPESCRIPT = `import { readFile, writeFile } from 'node:fs/promises'
import * as path from 'node:path'
import Parser, { Language } from 'web-tree-sitter'
import type { Stats } from './stats.js'

export const DEFAULT_LIMIT = 10

/** A cache of parsed files, keyed by absolute path. */
@Injectable()
export class FileCache<T> extends BaseCache implements Disposable {
  private readonly entries = new Map<string, T>()
  private hits = 0

  constructor(private readonly root: string, private readonly limit = DEFAULT_LIMIT) {
    super()
  }

  get size(): number {
    return this.entries.size
  }

  /**
   * Reads and parses one file, caching the result for later calls.
   */
  @Memoize()
  @Traced('cache.load')
  async load(file: string, parse: (text: string) => T): Promise<T> {
    const absolute = path.resolve(this.root, file)
    const cached = this.entries.get(absolute)
    if (cached !== undefined) {
      this.hits++
      return cached
    }
    const value = parse(await readFile(absolute, 'utf8'))
    if (this.entries.size >= this.limit) this.evictOldest()
    this.entries.set(absolute, value)
    return value
  }

  // Persists the cache index so that a restart can warm up from the same files.
  async persist(target: string, stats: Stats): Promise<void> {
    const index = [...this.entries.keys()].map((key) => path.relative(this.root, key))
    const payload = JSON.stringify({ index, hits: this.hits, limit: this.limit, stats })
    await writeFile(target, payload, 'utf8')
  }

  private evictOldest(): void {
    const oldest = this.entries.keys().next()
    if (!oldest.done) this.entries.delete(oldest.value)
  }

  describe(): string {
    const lines = [...this.entries.keys()].map((key, index) => \`\${index + 1}. \${path.basename(key)}\`)
    return [\`\${this.entries.size} of \${this.limit} entries, \${this.hits} hits\`, ...lines].join('\\n')
  }

  dispose(): void {
    this.entries.clear()
    this.hits = 0
  }
}

export const makeParser = async (language: Language): Promise<Parser> => {
  const parser = new Parser()
  parser.setLanguage(language)
  console.log('parser ready for', language, 'with the default limit of', DEFAULT_LIMIT)
  return parser
}
`

const GO = `package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	log "github.com/sirupsen/logrus"
)

// DefaultTimeout bounds every request.
const DefaultTimeout = 5 * time.Second

// Server serves the index over HTTP.
type Server struct {
	addr    string
	handler http.Handler
	started time.Time
}

// Start listens on the server's address until the context is cancelled.
// It returns the first error other than a clean shutdown.
func (s *Server) Start(ctx context.Context) error {
	srv := &http.Server{Addr: s.addr, Handler: s.handler, ReadTimeout: DefaultTimeout}
	s.started = time.Now()
	go func() {
		<-ctx.Done()
		_ = srv.Shutdown(context.Background())
	}()
	if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
		log.WithError(err).Error("server stopped")
		return fmt.Errorf("listen on %s: %w", s.addr, err)
	}
	return nil
}

func (s *Server) Uptime() time.Duration { return time.Since(s.started) }

// New builds a server for addr that answers every request with handler, logging each one.
func New(addr string, handler http.Handler) *Server {
	logged := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		log.Infof("%s %s", r.Method, r.URL.Path)
		handler.ServeHTTP(w, r)
	})
	return &Server{addr: addr, handler: logged}
}
`

before(async () => {
  extractor = await createExtractor()
})

describe('chunks: Python', () => {
  it('keeps small top-level statements together and splits an oversized class at its members', async () => {
    const { chunks } = await extract(PYTHON, 'python')
    assert.deepEqual(outline(chunks), [
      '1-14 module ',
      '17-32 class Inventory',
      '34-39 method Inventory.path_for',
      '41-52 method Inventory.load',
      '54-63 method Inventory.save',
      '66-67 function summarize',
    ])
    // Imports, a constant and a tiny dataclass form one module chunk, which shows its imports itself.
    assert.equal(chunks[0]!.body, lines(PYTHON, 1, 14))
    assert.equal(chunks[0]!.imports, '')
    // The class's own chunk holds its header, docstring and small members.
    assert.deepEqual(
      [chunks[1]!.signature, chunks[1]!.docstring, chunks[1]!.classContext],
      ['class Inventory(Base)', '"""Keeps items on disk as JSON, one file per inventory."""', ''],
    )
    assert.equal(chunks[1]!.body, lines(PYTHON, 17, 32))
  })

  it('enriches a method chunk with its class header, decorators, docstring, signature and imports', async () => {
    const { chunks } = await extract(PYTHON, 'python')
    const body = lines(PYTHON, 34, 39)
    const imports = 'import os.path'
    const classContext = 'class Inventory(Base):'
    assert.deepEqual(chunks[2], {
      kind: 'method',
      name: 'path_for',
      qualifiedName: 'Inventory.path_for',
      language: 'python',
      startLine: 34,
      endLine: 39,
      imports,
      classContext,
      signature: 'def path_for(root: str, name: str) -> str',
      decorators: '@staticmethod\n@cached(maxsize=MAX_ITEMS)',
      docstring: '"""Where the inventory `name` lives under `root`."""',
      body,
      tokenCount: Math.ceil((imports.length + classContext.length + body.length) / 4),
    })
    assert.equal(chunks[3]!.imports, 'import json\nimport os.path\nfrom typing import Optional')
    assert.equal(chunks[3]!.docstring, '"""Reads one inventory file; None when it does not exist."""')
    assert.equal(chunks[4]!.imports, 'import json\nimport os.path')
    assert.equal(chunks[4]!.decorators, '')
  })

  it('splits an oversized function at statement boundaries', async () => {
    const statements = Array.from({ length: 80 }, (_, i) => `    total += compute_${i}(values[${i}], offset=${i})`)
    const source = `def accumulate(values):\n    total = 0\n${statements.join('\n')}\n    return total\n`
    const { chunks } = await extract(source, 'python')
    assert.ok(chunks.length >= 3, `${chunks.length} chunks`)
    assert.equal(chunks[0]!.startLine, 1)
    assert.equal(chunks[chunks.length - 1]!.endLine, 83)
    chunks.forEach((chunk, i) => {
      assert.equal(chunk.kind, 'function')
      assert.equal(chunk.qualifiedName, 'accumulate')
      assert.equal(chunk.signature, 'def accumulate(values)')
      assert.ok(chunk.body.length <= MAX_CHUNK_CHARS, `chunk ${i} has ${chunk.body.length} characters`)
      assert.equal(chunk.body, lines(source, chunk.startLine, chunk.endLine))
      if (i > 0) {
        assert.equal(chunk.startLine, chunks[i - 1]!.endLine + 1)
        assert.match(chunk.body, /^ {4}total \+= compute_\d+\(/)
      }
    })
  })

  it('merges tiny functions and constants into one module chunk', async () => {
    const source = 'import os\n\ndef a():\n    return 1\n\ndef b():\n    return os.sep\n\nX = 3\n'
    const { chunks } = await extract(source, 'python')
    assert.deepEqual(outline(chunks), ['1-9 module '])
    assert.equal(chunks[0]!.body, source.trimEnd())
  })
})

describe('chunks: TypeScript', () => {
  it('splits an exported, decorated class at its members; tiny members join their neighbours', async () => {
    const { chunks } = await extract(TYPESCRIPT, 'typescript')
    assert.deepEqual(outline(chunks), [
      '1-6 module ',
      '8-20 class FileCache',
      '22-38 method FileCache.load',
      '40-50 method FileCache.persist',
      '52-61 method FileCache.describe',
      '63-68 function makeParser',
    ])
    assert.deepEqual(
      [chunks[1]!.decorators, chunks[1]!.docstring, chunks[1]!.classContext, chunks[1]!.imports],
      // `path` is only named in the doc comment; the textual match still counts it.
      ['@Injectable()', '/** A cache of parsed files, keyed by absolute path. */', '', "import * as path from 'node:path'"],
    )
  })

  it('enriches a method chunk', async () => {
    const { chunks } = await extract(TYPESCRIPT, 'typescript')
    const body = lines(TYPESCRIPT, 22, 38)
    const imports = "import { readFile, writeFile } from 'node:fs/promises'\nimport * as path from 'node:path'"
    const classContext = 'export class FileCache<T> extends BaseCache implements Disposable'
    assert.deepEqual(chunks[2], {
      kind: 'method',
      name: 'load',
      qualifiedName: 'FileCache.load',
      language: 'typescript',
      startLine: 22,
      endLine: 38,
      imports,
      classContext,
      signature: 'async load(file: string, parse: (text: string) => T): Promise<T>',
      decorators: "@Memoize()\n@Traced('cache.load')",
      docstring: '/**\n   * Reads and parses one file, caching the result for later calls.\n   */',
      body,
      tokenCount: Math.ceil((imports.length + classContext.length + body.length) / 4),
    })
    assert.equal(chunks[3]!.docstring, '// Persists the cache index so that a restart can warm up from the same files.')
    assert.equal(
      chunks[3]!.imports,
      "import { readFile, writeFile } from 'node:fs/promises'\nimport * as path from 'node:path'\nimport type { Stats } from './stats.js'",
    )
    assert.equal(chunks[5]!.imports, "import Parser, { Language } from 'web-tree-sitter'")
    assert.equal(chunks[5]!.signature, 'const makeParser = async (language: Language): Promise<Parser> =>')
  })
})

describe('chunks: Go', () => {
  it('gives a method defined outside its type the type header as class context', async () => {
    const { chunks } = await extract(GO, 'go')
    assert.deepEqual(outline(chunks), ['1-20 module ', '22-38 method Server.Start', '40-47 function New'])
    const start = chunks[1]!
    assert.deepEqual(
      [start.classContext, start.signature, start.docstring, start.decorators],
      [
        'type Server struct {',
        'func (s *Server) Start(ctx context.Context) error',
        "// Start listens on the server's address until the context is cancelled.\n// It returns the first error other than a clean shutdown.",
        '',
      ],
    )
    assert.equal(start.imports, '"context"\n"fmt"\n"net/http"\n"time"\nlog "github.com/sirupsen/logrus"')
    assert.equal(start.body, lines(GO, 22, 38))
    assert.deepEqual([chunks[2]!.classContext, chunks[2]!.imports], ['', '"net/http"\nlog "github.com/sirupsen/logrus"'])
  })
})
