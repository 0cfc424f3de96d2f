/**
 * A real, tiny transformers.js model directory for tests: a BERT-style WordPiece tokenizer over a
 * handful of words, and an ONNX graph (written here as protobuf, no ONNX tooling needed) whose
 * `last_hidden_state` is each token's row of a fixed embedding table — so the expected sentence
 * vector of any text is the normalised mean of known rows.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

/** Token → id; [PAD] must be ignored by mean pooling, [CLS]/[SEP] are added to every text. */
export const TINY_VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', 'session', 'token', 'password', 'hash', 'retry', '##s'] as const
export const TINY_DIMENSIONS = 4

/** Row of the embedding table for each vocabulary entry (same order as TINY_VOCAB). */
export const TINY_TABLE: ReadonlyArray<readonly number[]> = [
  [50, -50, 50, -50], // [PAD]: huge, so that any padding leaking into the mean shows
  [0, 0, 0, 1], // [UNK]
  [0, 0, 0, 0], // [CLS]
  [0, 0, 0, 0], // [SEP]
  [0, 0, 0, 0], // [MASK]
  [1, 0, 0, 0], // session
  [0, 1, 0, 0], // token
  [0, 0, 1, 0], // password
  [0, 0, 1, 1], // hash
  [1, 1, 1, 0], // retry
  [0, 2, 0, 0], // ##s
]

/** The vector transformers.js should produce for `tokens` (WordPiece pieces, without [CLS]/[SEP]). */
export function expectedVector(tokens: readonly string[]): number[] {
  const ids = ['[CLS]', ...tokens, '[SEP]'].map((token) => TINY_VOCAB.indexOf(token as (typeof TINY_VOCAB)[number]))
  const sum = new Array<number>(TINY_DIMENSIONS).fill(0)
  for (const id of ids) TINY_TABLE[id]!.forEach((value, i) => (sum[i]! += value / ids.length))
  const norm = Math.hypot(...sum)
  return sum.map((value) => value / norm)
}

/** Writes config.json, tokenizer.json, tokenizer_config.json and onnx/<onnxFile> under `dir`. */
export function writeTinyModel(dir: string, onnxFile = 'model.onnx'): void {
  mkdirSync(join(dir, 'onnx'), { recursive: true })
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', architectures: ['BertModel'], hidden_size: TINY_DIMENSIONS, vocab_size: TINY_VOCAB.length }))
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({
    tokenizer_class: 'BertTokenizer', do_lower_case: true, model_max_length: 32,
    pad_token: '[PAD]', unk_token: '[UNK]', cls_token: '[CLS]', sep_token: '[SEP]', mask_token: '[MASK]',
  }))
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson()))
  writeFileSync(join(dir, 'onnx', onnxFile), onnxModel())
}

function tokenizerJson(): object {
  const special = (id: number) => ({ id, content: TINY_VOCAB[id], single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })
  const cls = { id: '[CLS]', type_id: 0 }
  const sep = { id: '[SEP]', type_id: 0 }
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [0, 1, 2, 3, 4].map(special),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: cls }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: sep }],
      pair: [{ SpecialToken: cls }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: sep }, { Sequence: { id: 'B', type_id: 1 } }, { SpecialToken: { id: '[SEP]', type_id: 1 } }],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: Object.fromEntries(TINY_VOCAB.map((token, id) => [token, id])),
    },
  }
}

// ONNX protobuf (onnx.proto), only the fields used: a one-node graph Gather(table, input_ids).
const FLOAT = 1
const INT64 = 7

function onnxModel(): Buffer {
  const table = Buffer.alloc(TINY_VOCAB.length * TINY_DIMENSIONS * 4)
  TINY_TABLE.flat().forEach((value, i) => table.writeFloatLE(value, i * 4))
  const tensor = message([int(1, TINY_VOCAB.length), int(1, TINY_DIMENSIONS), int(2, FLOAT), text(8, 'embeddings'), bytes(9, table)])
  const node = message([text(1, 'embeddings'), text(1, 'input_ids'), text(2, 'last_hidden_state'), text(3, 'lookup'), text(4, 'Gather')])
  const graph = message([
    bytes(1, node),
    text(2, 'tiny-embedding'),
    bytes(5, tensor),
    bytes(11, valueInfo('input_ids', INT64, ['batch', 'sequence'])),
    bytes(12, valueInfo('last_hidden_state', FLOAT, ['batch', 'sequence', TINY_DIMENSIONS])),
  ])
  const opset = message([text(1, ''), int(2, 13)])
  return message([int(1, 8), text(2, 'git-vlt tests'), bytes(7, graph), bytes(8, opset)])
}

function valueInfo(name: string, elemType: number, dims: Array<string | number>): Buffer {
  const shape = message(dims.map((dim) => bytes(1, message([typeof dim === 'number' ? int(1, dim) : text(2, dim)]))))
  const tensorType = message([int(1, elemType), bytes(2, shape)])
  return message([text(1, name), bytes(2, message([bytes(1, tensorType)]))])
}

function message(fields: Buffer[]): Buffer {
  return Buffer.concat(fields)
}

function int(field: number, value: number): Buffer {
  return Buffer.concat([varint(field << 3), varint(value)])
}

function text(field: number, value: string): Buffer {
  return bytes(field, Buffer.from(value, 'utf8'))
}

function bytes(field: number, value: Buffer): Buffer {
  return Buffer.concat([varint((field << 3) | 2), varint(value.length), value])
}

function varint(value: number): Buffer {
  const out: number[] = []
  while (value > 0x7f) {
    out.push((value & 0x7f) | 0x80)
    value = Math.floor(value / 128)
  }
  out.push(value)
  return Buffer.from(out)
}
