import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { classifyContent } from '../../src/core/files/index.js'
import { FAKE } from './secrets.test.js'

const MiB = 1024 * 1024
const classify = (content: string | Buffer, maxBytes = MiB) => classifyContent(Buffer.isBuffer(content) ? content : Buffer.from(content), maxBytes)

describe('files: classifyContent', () => {
  it('decodes ordinary code unchanged', () => {
    const source = readFileSync(new URL('../../src/core/files/content.ts', import.meta.url), 'utf8')
    assert.deepEqual(classify(source), { ok: true, text: source, redacted: false })
    assert.deepEqual(classify(''), { ok: true, text: '', redacted: false })
    assert.deepEqual(classify('naïve = "☃"\n'), { ok: true, text: 'naïve = "☃"\n', redacted: false })
  })

  it('skips files over maxBytes', () => {
    assert.deepEqual(classify('0123456789', 10), { ok: true, text: '0123456789', redacted: false })
    assert.deepEqual(classify('0123456789!', 10), { ok: false, reason: 'tooLarge' })
  })

  it('calls a NUL byte in the first 8 KiB binary', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52])
    assert.deepEqual(classify(png), { ok: false, reason: 'binary' })
    assert.deepEqual(classify(`${'x'.repeat(8191)}\0`), { ok: false, reason: 'binary' })
    assert.deepEqual(classify(Buffer.from('\uFEFFint x;\n', 'utf16le')), { ok: false, reason: 'binary' })
    // Past the sniffed prefix a NUL is just a character, as for git.
    const late = `${'x\n'.repeat(4096)}\0`
    assert.deepEqual(classify(late), { ok: true, text: late, redacted: false })
  })

  it('strips a UTF-8 byte order mark', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('print(1)\n')])
    assert.deepEqual(classify(bytes), { ok: true, text: 'print(1)\n', redacted: false })
  })

  it('refuses invalid UTF-8', () => {
    assert.deepEqual(classify(Buffer.from([0x61, 0xff, 0x62])), { ok: false, reason: 'invalidUtf8' })
    assert.deepEqual(classify(Buffer.from('café\n', 'latin1')), { ok: false, reason: 'invalidUtf8' })
    // A multi-byte sequence cut off at the end of the file.
    assert.deepEqual(classify(Buffer.from([0x61, 0xe2, 0x98])), { ok: false, reason: 'invalidUtf8' })
  })

  it('calls one very long line or very long lines on average minified', () => {
    const bundle = `!function(){${'var a=1;'.repeat(700)}}();\n`
    assert.deepEqual(classify(bundle), { ok: false, reason: 'minified' })
    const wide = `${'x'.repeat(400)}\n`.repeat(10)
    assert.deepEqual(classify(wide), { ok: false, reason: 'minified' })
    const unterminated = 'y'.repeat(5001)
    assert.deepEqual(classify(unterminated), { ok: false, reason: 'minified' })
  })

  it('keeps small files and long lines within the limits', () => {
    const small = `${'z'.repeat(1500)}\n`
    assert.deepEqual(classify(small), { ok: true, text: small, redacted: false })
    const table = `${'x'.repeat(4999)}\n${'short line\n'.repeat(20)}`
    assert.deepEqual(classify(table), { ok: true, text: table, redacted: false })
    const justUnder = `${'w'.repeat(299)}\n`.repeat(10)
    assert.deepEqual(classify(justUnder), { ok: true, text: justUnder, redacted: false })
  })

  it('keeps code with one huge expression, and calls a bundle behind a licence header minified', () => {
    const code = `${'    assert f(x) == g(x)  # an ordinary line of a test\n'.repeat(200)}    assert expand(e) == ${'x + '.repeat(1700)}1\n`
    assert.deepEqual(classify(code), { ok: true, text: code, redacted: false })
    const bundle = `/*! licence: MIT */\n${'var a=1;'.repeat(800)}\n`
    assert.deepEqual(classify(bundle), { ok: false, reason: 'minified' })
  })

  it('skips private keys and files that are mostly credentials', () => {
    assert.deepEqual(classify(`# deploy key\n${FAKE.privateKey}\n`), { ok: false, reason: 'secret' })
    const inCode = `import os\n\nTEST_KEY = """\n${FAKE.privateKey}\n"""\n\n${'def f():\n    return 1\n'.repeat(50)}`
    assert.deepEqual(classify(inCode), { ok: false, reason: 'secret' })
    assert.deepEqual(classify(`${FAKE.githubClassic}\n`), { ok: false, reason: 'secret' })
    assert.deepEqual(classify(`{"openrouter": "${FAKE.openrouter}", "google": "${FAKE.google}"}\n`), { ok: false, reason: 'secret' })
  })

  it('redacts a credential in an otherwise ordinary file', () => {
    const body = 'def handler(event):\n    return process(event)\n'.repeat(5)
    const result = classify(`import boto3\nAWS_KEY = "${FAKE.aws}"\n${body}`)
    assert.deepEqual(result, { ok: true, text: `import boto3\nAWS_KEY = "[REDACTED]          "\n${body}`, redacted: true })
  })

  it('redacts in place: every line and column of the rest stays where it was', () => {
    const source = `import boto3\n\nAWS_SECRET_ACCESS_KEY = "${FAKE.awsSecret}"; CLIENT = boto3.client("s3")\ntoken = "${FAKE.githubClassic}"\n\ndef upload(path):\n    return CLIENT.upload_file(path)\n${"# uploads go to the bucket named in settings\\n".repeat(6)}`
    const result = classify(source)
    assert.ok(result.ok)
    assert.ok(!result.text.includes(FAKE.awsSecret) && !result.text.includes(FAKE.githubClassic))
    assert.deepEqual(result.text.split('\n').map((line) => line.length), source.split('\n').map((line) => line.length))
    assert.equal(result.text.split('\n')[2]!.indexOf('CLIENT'), source.split('\n')[2]!.indexOf('CLIENT'))
    assert.match(result.text, /AWS_SECRET_ACCESS_KEY = "\[REDACTED:aws-secret-access-key\] *"; CLIENT/)
  })

  it('skips a file with a private key however it is quoted', () => {
    const lines = FAKE.privateKey.split('\n')
    const quoted = `const fixture =\n${lines.map((line) => `  "${line}\\n" +`).join('\n')}\n  "";\n${'export const x = 1\n'.repeat(40)}`
    assert.deepEqual(classify(quoted), { ok: false, reason: 'secret' })
    assert.deepEqual(classify(`# Setup\n\nPaste this key:\n\n\`\`\`\n${FAKE.opensshKey}\n\`\`\`\n${'More words about setup.\n'.repeat(40)}`), { ok: false, reason: 'secret' })
  })
})
