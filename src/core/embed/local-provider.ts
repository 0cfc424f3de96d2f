/**
 * Embeddings from a transformers.js model directory (ONNX weights and a Hugging Face tokenizer),
 * computed in this process: mean pooling over the tokens and L2 normalisation, as sentence-transformers
 * does. @huggingface/transformers brings ONNX Runtime (~380 MB installed), so it is an optional peer
 * dependency, imported only when a local model is configured; nothing is ever downloaded.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { VltError } from '../errors.js'
import { EmbeddingUnavailableError } from './errors.js'
import type { EmbeddingProvider, EmbeddingUsage } from './provider.js'

/** A variable, so that TypeScript does not look for the optional package at build time. */
const TRANSFORMERS = '@huggingface/transformers'

/** The ONNX files transformers.js can load, most precise first, with the dtype that selects each. */
const ONNX_FILES: ReadonlyArray<readonly [file: string, dtype: string]> = [
  ['model.onnx', 'fp32'],
  ['model_fp16.onnx', 'fp16'],
  ['model_quantized.onnx', 'q8'],
  ['model_int8.onnx', 'int8'],
  ['model_uint8.onnx', 'uint8'],
  ['model_q4.onnx', 'q4'],
  ['model_q4f16.onnx', 'q4f16'],
  ['model_bnb4.onnx', 'bnb4'],
]

/** The files transformers.js reads besides the weights. */
const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const

/** A checked model directory. */
export interface LocalModel {
  /** Absolute. */
  dir: string
  /** The weights used (relative to dir) and the transformers.js dtype that selects them. */
  onnxFile: string
  dtype: string
  /** Hash of the configuration, tokenizer and weights' size: same model, same vectors, wherever it lives. */
  fingerprint: string
}

/** Checks that `dir` holds what transformers.js needs; throws a VltError naming everything that is missing. */
export function inspectModelDir(dir: string): LocalModel {
  const where = `embedding.model_dir ${dir}`
  let isDirectory: boolean
  try {
    isDirectory = statSync(dir).isDirectory()
  } catch (error) {
    throw new VltError(`${where} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  if (!isDirectory) throw new VltError(`${where} is not a directory`)
  const missing: string[] = REQUIRED_FILES.filter((file) => !isFile(join(dir, file)))
  let onnxNames: string[] = []
  try {
    onnxNames = readdirSync(join(dir, 'onnx'))
  } catch {
    // Reported below as missing weights.
  }
  const weights = ONNX_FILES.find(([file]) => onnxNames.includes(file) && isFile(join(dir, 'onnx', file)))
  if (!weights) missing.push(`onnx/model.onnx (or another onnx/model*.onnx: ${ONNX_FILES.slice(1).map(([file]) => file).join(', ')})`)
  if (missing.length > 0) {
    throw new VltError(`${where} is not a transformers.js model directory: missing ${missing.join(', ')}`)
  }
  const [onnxFile, dtype] = weights!
  const hash = createHash('sha256')
  for (const file of REQUIRED_FILES) {
    const bytes = readFileSync(join(dir, file))
    checkJson(bytes, `${where}: ${file}`)
    hash.update(`${file}\0${bytes.length}\0`).update(bytes)
  }
  hash.update(`${onnxFile}\0${statSync(join(dir, 'onnx', onnxFile)).size}`)
  return { dir, onnxFile: `onnx/${onnxFile}`, dtype, fingerprint: hash.digest('hex').slice(0, 16) }
}

/** The part of @huggingface/transformers used here. */
interface Transformers {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean; useFSCache: boolean; useBrowserCache: boolean }
  pipeline(task: 'feature-extraction', model: string, options: { dtype: string; local_files_only: boolean }): Promise<FeatureExtractor>
}

type FeatureExtractor = (texts: string[], options: { pooling: 'mean'; normalize: boolean }) => Promise<{ data: ArrayLike<number>; dims: number[] }>

export class LocalEmbeddingProvider implements EmbeddingProvider {
  readonly id: string
  /** `requests` counts batches run; a local model reports no token counts. */
  readonly usage: EmbeddingUsage = { requests: 0, inputTokens: 0 }
  private extractor: Promise<FeatureExtractor> | undefined

  constructor(private readonly model: LocalModel, private readonly batchSize: number) {
    this.id = `local:${model.dtype}:${model.fingerprint}`
  }

  async embed(texts: string[], signal?: AbortSignal, onBatch?: (offset: number, vectors: Float32Array[]) => void): Promise<Float32Array[]> {
    const extractor = await this.load()
    const result: Float32Array[] = []
    const batchSize = Math.max(1, Math.floor(this.batchSize))
    for (let offset = 0; offset < texts.length; offset += batchSize) {
      // A batch cannot be interrupted; the caller's cancellation takes effect between batches.
      if (signal?.aborted) throw signal.reason
      const batch = texts.slice(offset, offset + batchSize)
      this.usage.requests++
      let output: Awaited<ReturnType<FeatureExtractor>>
      try {
        output = await extractor(batch, { pooling: 'mean', normalize: true })
      } catch (error) {
        throw this.failure(`failed on a batch of ${batch.length} texts`, error)
      }
      const vectors = rows(output, batch.length)
      if (!vectors) throw this.failure(`returned a tensor of shape [${output.dims.join(', ')}] for ${batch.length} texts`)
      result.push(...vectors)
      onBatch?.(offset, vectors)
    }
    return result
  }

  private load(): Promise<FeatureExtractor> {
    // A failed load is not retried within this process: the directory or the installation is at fault.
    this.extractor ??= importTransformers().then(async (transformers) => {
      // Only the configured directory is read: no hub downloads, no cache writes.
      Object.assign(transformers.env, { allowRemoteModels: false, allowLocalModels: true, useFSCache: false, useBrowserCache: false })
      try {
        return await transformers.pipeline('feature-extraction', this.model.dir, { dtype: this.model.dtype, local_files_only: true })
      } catch (error) {
        throw this.failure(`could not be loaded (${this.model.onnxFile})`, error)
      }
    })
    return this.extractor
  }

  private failure(what: string, cause?: unknown): EmbeddingUnavailableError {
    const reason = cause === undefined ? '' : `: ${(cause as Error)?.message ?? String(cause)}`
    return new EmbeddingUnavailableError('local-model', `local model ${this.model.dir} ${what}${reason}`)
  }
}

async function importTransformers(): Promise<Transformers> {
  try {
    return (await import(TRANSFORMERS)) as Transformers
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if ((code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') && String((error as Error).message).includes(`'${TRANSFORMERS}'`)) {
      throw new EmbeddingUnavailableError('local-model', missingPackageMessage())
    }
    throw new EmbeddingUnavailableError('local-model', `${TRANSFORMERS} could not be loaded: ${(error as Error).message}`)
  }
}

export function missingPackageMessage(): string {
  // git-vlt's own directory: dist/core/embed (or src/core/embed) is three levels down.
  const root = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/$/, '')
  return `install ${TRANSFORMERS} to use a local model: npm install --no-save --prefix ${root} ${TRANSFORMERS}@3 (an optional dependency of git-vlt, ~380 MB with ONNX Runtime)`
}

/** The [n, d] output as n vectors, or undefined when it has another shape. */
function rows(output: { data: ArrayLike<number>; dims: number[] }, count: number): Float32Array[] | undefined {
  const [n, d] = output.dims
  if (output.dims.length !== 2 || n !== count || !d || output.data.length !== n * d) return undefined
  const data = Float32Array.from(output.data)
  return Array.from({ length: n }, (_, i) => data.slice(i * d, (i + 1) * d))
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

function checkJson(bytes: Buffer, what: string): void {
  try {
    JSON.parse(bytes.toString('utf8'))
  } catch (error) {
    throw new VltError(`${what} is not valid JSON (${(error as Error).message})`)
  }
}
