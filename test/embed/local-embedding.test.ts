import { strict as assert } from 'node:assert'
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_CONFIG } from '../../src/core/config/defaults.js'
import { loadConfig, parseConfig, readConfig } from '../../src/core/config/load.js'
import { createEmbeddingProvider, EmbeddingUnavailableError, inspectModelDir, type EmbeddingProvider } from '../../src/core/embed/index.js'
import { VltError } from '../../src/core/errors.js'
import { openQueryContext } from '../../src/core/query/context.js'
import { searchCode } from '../../src/core/query/search/index.js'
import { createIndexedRepo } from '../query/search-fixture.js'
import { expectedVector, TINY_DIMENSIONS, writeTinyModel } from '../helpers/tiny-embedding-model.js'

/** Whether the optional @huggingface/transformers is installed where git-vlt imports it from. */
const transformersInstalled = await import('@huggingface/transformers' as string).then(() => true, () => false)

const localProvider = (modelDir: string, batchSize = 64): EmbeddingProvider =>
  createEmbeddingProvider({ ...DEFAULT_CONFIG.embedding, provider: 'local', modelDir, batchSize })!

describe('embed: local model directory', function () {
  this.timeout(60_000)
  let root: string
  let model: string
  before(() => {
    root = mkdtempSync(join(tmpdir(), 'vlt-local-model-'))
    model = join(root, 'tiny')
    writeTinyModel(model)
  })
  after(() => rmSync(root, { recursive: true, force: true }))

  const refuses = (dir: string, message: RegExp): void => {
    assert.throws(() => inspectModelDir(dir), (error: Error) => error instanceof VltError && message.test(error.message))
  }

  it('names everything a model directory lacks', () => {
    refuses(join(root, 'absent'), new RegExp(`^embedding\\.model_dir ${join(root, 'absent')} cannot be read \\(ENOENT\\)$`))
    refuses(join(model, 'config.json'), /is not a directory$/)
    const empty = join(root, 'empty')
    mkdirSync(empty)
    refuses(empty, /is not a transformers\.js model directory: missing config\.json, tokenizer\.json, tokenizer_config\.json, onnx\/model\.onnx \(or another onnx\/model\*\.onnx: model_fp16\.onnx, model_quantized\.onnx/)
    const noWeights = join(root, 'no-weights')
    cpSync(model, noWeights, { recursive: true })
    rmSync(join(noWeights, 'onnx', 'model.onnx'))
    writeFileSync(join(noWeights, 'onnx', 'weights.bin'), '')
    refuses(noWeights, /: missing onnx\/model\.onnx \(or another/)
    const badJson = join(root, 'bad-json')
    cpSync(model, badJson, { recursive: true })
    writeFileSync(join(badJson, 'tokenizer_config.json'), '{"tokenizer_class": ')
    refuses(badJson, /: tokenizer_config\.json is not valid JSON/)
  })

  it('picks the most precise weights there are, and identifies the model by content', () => {
    assert.deepEqual(inspectModelDir(model), { dir: model, onnxFile: 'onnx/model.onnx', dtype: 'fp32', fingerprint: inspectModelDir(model).fingerprint })
    const quantized = join(root, 'quantized')
    writeTinyModel(quantized, 'model_quantized.onnx')
    const q8 = inspectModelDir(quantized)
    assert.equal(q8.onnxFile, 'onnx/model_quantized.onnx')
    assert.equal(q8.dtype, 'q8')

    const provider = localProvider(model)
    assert.match(provider.id, /^local:fp32:[0-9a-f]{16}$/)
    const copy = join(root, 'copy-elsewhere')
    cpSync(model, copy, { recursive: true })
    assert.equal(localProvider(copy).id, provider.id, 'the same model, moved, keeps its cached vectors')
    writeFileSync(join(copy, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: TINY_DIMENSIONS, note: 'retrained' }))
    assert.notEqual(localProvider(copy).id, provider.id)
  })

  it('is configured with model_dir in the user config, relative to that file; never from vlt.toml', async () => {
    assert.throws(() => parseConfig('[embedding]\nprovider = "local"\n'), /vlt\.toml: embedding\.model_dir is required when embedding\.provider = "local"/)
    assert.throws(() => parseConfig('[embedding]\nprovider = "local"\nmodel_dir = ""\n'), /embedding\.model_dir must be a non-empty string/)
    const repo = mkdtempSync(join(tmpdir(), 'vlt-local-model-repo-'))
    try {
      const env = { GIT_VLT_CONFIG: join(root, 'config.toml') }
      writeFileSync(env.GIT_VLT_CONFIG, '[embedding]\nprovider = "local"\nmodel_dir = "tiny"\nbatch_size = 8\n')
      assert.equal((await loadConfig(repo, env)).embedding.modelDir, model)
      writeFileSync(env.GIT_VLT_CONFIG, `[embedding]\nprovider = "local"\nmodel_dir = "${model}"\n`)
      assert.equal((await loadConfig(repo, env)).embedding.modelDir, model)
      // A repository cannot make a native runtime load model files of its choosing.
      writeFileSync(join(repo, 'vlt.toml'), '[embedding]\nprovider = "local"\nmodel_dir = "."\n')
      const { config, warnings } = await readConfig(repo)
      assert.equal(config.embedding.provider, 'none')
      assert.equal(config.embedding.modelDir, undefined)
      assert.match(warnings[0]!, /^vlt\.toml: \[embedding\] \(provider, model_dir\) ignored/)
    } finally {
      rmSync(repo, { recursive: true, force: true })
    }
  })

  if (transformersInstalled) {
    it('embeds with mean pooling and normalisation, batch by batch (@huggingface/transformers installed)', async () => {
      const provider = localProvider(model, 2)
      const batches: number[] = []
      const texts = ['session token', 'Passwords hash', 'retry', 'unknownword session']
      const vectors = await provider.embed(texts, undefined, (offset, batch) => batches.push(offset, batch.length))
      assert.deepEqual(batches, [0, 2, 2, 2])
      assert.equal(provider.usage.requests, 2)
      const expected = [['session', 'token'], ['password', '##s', 'hash'], ['retry'], ['[UNK]', 'session']].map(expectedVector)
      vectors.forEach((vector, i) => {
        assert.ok(vector instanceof Float32Array)
        assert.equal(vector.length, TINY_DIMENSIONS)
        vector.forEach((value, d) => assert.ok(Math.abs(value - expected[i]![d]!) < 1e-5, `text ${i} dimension ${d}: ${value} vs ${expected[i]![d]}`))
      })
    })

    it('serves the vector path of search, its vectors cached like any provider', async () => {
      const repo = await createIndexedRepo()
      try {
        const qctx = await openQueryContext(repo.dir, { warn: () => {}, noSync: true })
        const provider = localProvider(model)
        const response = await searchCode(qctx, 'password hash', { provider, explain: true })
        assert.deepEqual(response.warnings, [])
        assert.ok(response.explain!.paths.vector.length > 0)
        assert.ok(response.results.some((r) => r.methods.includes('vector')))
        const fresh = localProvider(model)
        await searchCode(await openQueryContext(repo.dir, { warn: () => {}, noSync: true }), 'session token', { provider: fresh })
        assert.equal(fresh.usage.requests, 1, 'only the query is embedded: chunk vectors come from the cache')
      } finally {
        repo.cleanup()
      }
    })
  } else {
    it('says how to install @huggingface/transformers when it is missing (not installed here)', async () => {
      const provider = localProvider(model)
      await assert.rejects(provider.embed(['session']), (error: Error) =>
        error instanceof EmbeddingUnavailableError && error.kind === 'local-model' &&
        /^install @huggingface\/transformers to use a local model: npm install --no-save --prefix \S+ @huggingface\/transformers@3/.test(error.message))
      const repo = await createIndexedRepo()
      try {
        const qctx = await openQueryContext(repo.dir, { warn: () => {}, noSync: true })
        const response = await searchCode(qctx, 'password hash', { provider })
        assert.equal(response.warnings.length, 1)
        assert.match(response.warnings[0]!, /^embeddings unavailable \(local-model\): install @huggingface\/transformers to use a local model/)
        assert.ok(response.results.length > 0)
      } finally {
        repo.cleanup()
      }
    })
  }
})
