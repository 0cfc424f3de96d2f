import { strict as assert } from 'node:assert'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { startUiServer, type UiServer } from '../../src/core/ui/index.js'
import { vlt, vltJson } from '../helpers/cli.js'
import { startFakeOpenAIServer, type FakeOpenAIServer } from '../helpers/fake-openai-server.js'
import { userConfigFile, type UserConfigFile } from '../helpers/user-config.js'
import { chromiumMissing, launchChromium } from './browser.js'
import { createUiRepo, type UiFixture } from './fixture.js'

/** Globals of the page: the callbacks given to page.evaluate and friends run in the browser, not in Node. */
declare const document: any
declare const window: any
declare const getComputedStyle: any

/** VLT_UI_SCREENSHOTS=1 writes the README's screenshots (docs/ui/); otherwise they go to a temporary folder. */
const DOCS_UI = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'docs', 'ui')

describe('git vlt ui in a browser (chromium, headless)', function () {
  this.timeout(60_000)
  let fixture: UiFixture
  let model: FakeOpenAIServer
  let user: UserConfigFile
  let server: UiServer
  let browser: Browser
  let page: Page
  let shots: string

  before(async function () {
    const missing = chromiumMissing()
    if (missing) {
      // CI installs it (.ci/run); elsewhere the suite says why it did not run.
      if (process.env.CI) throw new Error(missing)
      console.warn(`    skipped: ${missing}`)
      return this.skip()
    }
    fixture = await createUiRepo()
    model = await startFakeOpenAIServer()
    // Thread summaries the oracle cites ask their own role's model: the scripted answers are the answer model's.
    user = userConfigFile(`[llm]\nprovider = "openai"\nbase_url = "${model.baseUrl}"\nmodel = "test-model"\n[llm.models]\nsummarise = "summary-model"\n`)
    process.env.GIT_VLT_CONFIG = user.path
    server = await startUiServer({ cwd: fixture.repo.dir })
    browser = await launchChromium()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.on('pageerror', (error) => assert.fail(`error in the page: ${error.message}`))
    shots = process.env.VLT_UI_SCREENSHOTS ? DOCS_UI : mkdtempSync(join(tmpdir(), 'vlt-ui-shots-'))
    mkdirSync(shots, { recursive: true })
  })
  after(async () => {
    delete process.env.GIT_VLT_CONFIG
    await browser?.close()
    await server?.close()
    await model?.close()
    user?.cleanup()
    fixture?.repo.cleanup()
    if (shots && shots !== DOCS_UI) rmSync(shots, { recursive: true, force: true })
  })

  const open = async (hash = ''): Promise<void> => {
    await page.goto(`${server.url}${hash}`)
    await page.waitForSelector('body[data-ready=true]')
  }
  const ask = async (question: string): Promise<void> => {
    await page.fill('#question', question)
    await page.press('#question', 'Enter')
  }
  const lastAnswer = '.msg.answer:last-of-type'

  it('streams the answer: its tokens are on screen before it is complete, its citations are links', async () => {
    await open()
    assert.equal(await page.evaluate(() => document.activeElement?.id), 'question', 'the question has the focus')
    const text = `\`acquireLock\` is defined in \`src/lock.ts:2-10\` and called by writeBlobRecord at src/store.ts:4-7. The team decided on the timeout in ${fixture.thread}#${fixture.entryId}.`
    model.replyNext({ text, chunkDelayMs: 40, model: 'test-model' })
    // The oracle cites the summaries of the threads it finds, made (and cached) by the summarise role's model.
    model.replyNext({ text: 'Decided: a 30 s lock timeout, for NFS.', model: 'summary-model' })
    await ask('where is acquireLock defined')
    // Part of the answer shows while the answer is still being written.
    await page.waitForFunction(() => {
      const answer = document.querySelector('.msg.answer')
      const shown = answer?.querySelector('.answer-body')?.textContent ?? ''
      return answer?.getAttribute('aria-busy') === 'true' && shown.length > 0 && !shown.includes('timeout in')
    })
    await page.waitForSelector(`${lastAnswer}[aria-busy=false]`)
    assert.match(await page.textContent(`${lastAnswer} .model`) ?? '', /Written by test-model/)
    assert.equal(await page.locator(`${lastAnswer} .answer-body a.citation[href="#/code?path=src%2Flock.ts&start=2&end=10"]`).count(), 1)
    assert.equal(await page.locator(`${lastAnswer} .answer-body a.citation[href="#/code?path=src%2Fstore.ts&start=4&end=7"]`).count(), 1)
    assert.ok((await page.locator(`${lastAnswer} .sources-used li`).count()) > 0, 'the sources are listed')
    await page.screenshot({ path: join(shots, 'chat.png') })
  })

  it('a code citation opens the file scrolled to its highlighted lines, with their blame and a commit view', async () => {
    await page.click(`${lastAnswer} .answer-body a.citation[href*="src%2Flock.ts"]`)
    await page.waitForSelector('#L2.hl')
    const highlighted = await page.$$eval('.line.hl', (lines) => lines.map((line) => line.id))
    assert.deepEqual(highlighted, ['L2', 'L3', 'L4', 'L5', 'L6', 'L7', 'L8', 'L9', 'L10'])
    assert.ok(await page.locator('#L4 .hljs-keyword').count(), 'syntax highlighted')
    assert.equal(await page.textContent('.toolbar code.ref'), 'src/lock.ts:2')
    assert.match(await page.getAttribute('.toolbar a.button', 'href') ?? '', /^vscode:\/\/file\/.*\/src\/lock\.ts:2$/)
    await page.waitForSelector('.blame li')
    assert.match(await page.textContent('.blame') ?? '', /Raise LOCK_TIMEOUT_MS to 30 s/)
    assert.ok(await page.locator('#L2').isVisible())
    await page.screenshot({ path: join(shots, 'code.png') })
    await page.click('.blame li:has-text("Raise LOCK_TIMEOUT_MS") a')
    await page.waitForSelector('.commit-view')
    assert.match(await page.textContent('.commit-view .message') ?? '', /NFS mounts are slow/)
    assert.equal(await page.locator('.commit-view .diff .add:has-text("LOCK_TIMEOUT_MS = 30000")').count(), 1)
    assert.equal(await page.locator('.commit-view .diff .del:has-text("LOCK_TIMEOUT_MS = 5000")').count(), 1)
  })

  it('a thread citation opens the thread at the cited entry', async () => {
    await page.click(`${lastAnswer} .answer-body a.citation[href*="thread"]`)
    await page.waitForSelector(`#entry-${fixture.entryId}.hl`)
    assert.match(await page.textContent(`#entry-${fixture.entryId}`) ?? '', /NFS mounts release locks slowly/)
    // The thread list summarises a thread only when its summary is opened.
    const summaries = model.chatRequests.length
    await page.click('nav a:has-text("Threads")')
    await page.waitForSelector(`.list li:has-text("${fixture.thread}")`)
    assert.equal(model.chatRequests.length, summaries, 'nothing summarised before it is asked for')
    // Opened, it shows the summary the oracle made for its answer above, cached: no new request.
    await page.click(`.list li:has-text("${fixture.thread}") summary`)
    await page.waitForSelector('.list .summary .md:has-text("30 s lock timeout")')
    assert.equal(model.chatRequests.length, summaries)
  })

  it('goes to the definition and the references of an identifier clicked in the code', async () => {
    await open('#/code?path=src/store.ts')
    await page.locator('#L5 .src').click({ position: { x: 40, y: 8 } })
    await page.waitForSelector('.symbol-bar code')
    assert.equal(await page.textContent('.symbol-bar code'), 'acquireLock')
    await page.click('.symbol-bar a:has-text("Find references")')
    await page.waitForSelector('h2:has-text("References to acquireLock")')
    assert.ok(await page.locator('a:has-text("src/store.ts:5")').count())
    await page.goBack()
    await page.waitForSelector('.symbol-bar')
    await page.locator('#L5 .src').click({ position: { x: 40, y: 8 } })
    await page.click('.symbol-bar a:has-text("Go to definition")')
    await page.click('a:has-text("src/lock.ts:4")')
    await page.waitForSelector('#L4.hl')
  })

  it('opens the definition and the references of an identifier from the keyboard (n/p select, F12, Shift+F12)', async () => {
    await open('#/code?path=src/store.ts&start=5&end=5')
    // The hash changed on a loaded page: wait for this file's view, not the one before it.
    await page.waitForSelector('.code[aria-label^="src/store.ts "] #L5.hl')
    await page.focus('.code-view .code')
    await page.keyboard.press('n')
    assert.equal(await page.textContent('.symbol-bar code'), 'acquireLock', 'the first identifier of the cited line')
    await page.keyboard.press('n')
    assert.equal(await page.textContent('.symbol-bar code'), 'path')
    await page.keyboard.press('p')
    assert.equal(await page.evaluate(() => window.getSelection().toString()), 'acquireLock')
    await page.keyboard.press('F12')
    await page.waitForSelector('h2:has-text("Definitions of acquireLock")')
    assert.ok(await page.locator('a:has-text("src/lock.ts:4")').count())
    await page.goBack()
    await page.waitForSelector('#L5.hl')
    await page.focus('.code-view .code')
    await page.keyboard.press('n')
    await page.keyboard.press('Shift+F12')
    await page.waitForSelector('h2:has-text("References to acquireLock")')
    await open()
    assert.match(await page.textContent('.home') ?? '', /F12 \(or d\) opens its definition/)
  })

  it('shows the agent loop\'s tool calls while the answer is running', async () => {
    await open()
    model.replyNext(
      { toolCalls: [{ id: 'call_ui', name: 'find_references', arguments: { symbol: 'persistRecord' } }], model: 'test-model' },
      { text: '`persistRecord` is called by `writeBlobRecord` (`src/store.ts:4-7`) once the lock is held.', chunkDelayMs: 60, model: 'test-model' },
    )
    await ask('what happens after the lock is taken in writeBlobRecord')
    // The tool call is on screen while the answer is still being written.
    await page.waitForFunction(() => {
      const running = document.querySelector('.msg.answer[aria-busy=true]')
      return (running?.querySelector('.tool-calls')?.textContent ?? '').includes('(find_references)')
    })
    await page.waitForSelector(`${lastAnswer}[aria-busy=false]`)
    assert.match(await page.textContent(`${lastAnswer} .tool-calls`) ?? '', /\(find_references\)/)
    assert.match(await page.textContent(`${lastAnswer} .answer-body`) ?? '', /persistRecord/)
  })

  it('shows the conversation again after a reload, the same context the CLI continues', async () => {
    // Asked in the browser (the tests above), then on the command line.
    const cli = vlt(fixture.repo.dir, ['oracle', 'where is persistRecord defined', '--source', 'code', '--no-log'])
    assert.equal(cli.status, 0, cli.stderr)
    await open()
    await page.reload()
    await page.waitForSelector('body[data-ready=true] .context-name[data-context=default]')
    const questions = await page.$$eval('.msg.user', (items) => items.map((item) => item.textContent))
    assert.ok(questions.some((q) => /^what happens after the lock is taken in writeBlobRecord.*asked here/.test(q ?? '')), questions.join(' | '))
    assert.match(questions.at(-1) ?? '', /^where is persistRecord defined.*asked on the command line/)
    assert.match(await page.textContent('.msg.answer.restored:last-of-type .answer-body') ?? '', /persistRecord is defined at src\/store\.ts:9-11/)
    // …and the CLI continues what the browser asked: "it" is the symbol the browser's last answer defined.
    model.replyNext({ text: '`endpointClient` builds the client (`src/client.ts:4-6`).', model: 'test-model' })
    await ask('where is endpointClient defined')
    await page.waitForSelector(`${lastAnswer}:not(.restored)[aria-busy=false]`)
    const followUp = vltJson(fixture.repo.dir, ['oracle', 'who calls it', '--source', 'code', '--no-log'])
    assert.match(followUp.context.resolved, /^it → endpointClient\b/)
  })

  it('never runs markup from the repository: a note or entry with <script> shows it as text', async () => {
    await open('#/note?path=docs/hostile.md')
    await page.waitForSelector('.note-body h1')
    assert.match(await page.textContent('.note-body') ?? '', /<script>window.__vltInjected = 1<\/script>/)
    await open(`#/thread?name=${fixture.thread}`)
    await page.waitForSelector('.entry')
    assert.match(await page.textContent('.thread-view') ?? '', /<img src="x" onerror=/)
    await page.waitForTimeout(200)
    assert.equal(await page.evaluate(() => (window as { __vltInjected?: number }).__vltInjected), undefined)
    assert.equal(await page.locator('a[href^="javascript:"]').count(), 0)
  })

  it('stops a running answer with Esc, which cancels the model request', async () => {
    await open()
    const cancelled = model.streamsCancelled
    model.replyNext({ text: 'writeBlobRecord takes the lock first, then persists the record.', model: 'test-model' })
    model.failNext({ kind: 'hang', afterChunks: 3, model: 'test-model' })
    await ask('where is writeBlobRecord defined')
    // The conversation's earlier answers are shown again on load: the running one is the last.
    await page.waitForFunction(() => (document.querySelector('.msg.answer[aria-busy=true] .answer-body')?.textContent ?? '').length > 0)
    await page.keyboard.press('Escape')
    await page.waitForSelector(`${lastAnswer} .progress.ended:has-text("Stopped.")`)
    for (let i = 0; i < 100 && model.streamsCancelled === cancelled; i++) await page.waitForTimeout(50)
    assert.equal(model.streamsCancelled, cancelled + 1)
    assert.equal(await page.isEnabled('#send'), true)
  })

  it('answers offline with the extractive answer, formatted, and never as if a model wrote it', async () => {
    delete process.env.GIT_VLT_CONFIG
    try {
      await open()
      await ask('where is acquireLock defined')
      await page.waitForSelector(`${lastAnswer}[aria-busy=false]`)
      assert.match(await page.textContent(`${lastAnswer} .model`) ?? '', /no model wrote it/)
      assert.equal(await page.locator(`${lastAnswer}.extractive`).count(), 1)
      assert.ok(await page.locator(`${lastAnswer} .answer-body pre code`).count(), 'the evidence is quoted as code blocks')
      assert.ok(await page.locator(`${lastAnswer} .answer-body a.citation[href*="src%2Flock.ts"]`).count())
    } finally {
      process.env.GIT_VLT_CONFIG = user.path
    }
  })

  it('searches files, shows the map, the index status and syncs on demand', async () => {
    await open()
    await page.fill('#search-input', 'blob record lock')
    await page.press('#search-input', 'Enter')
    await page.waitForSelector('.search-view .results > li')
    assert.ok(await page.locator('.search-view .results a:has-text("src/store.ts")').count())
    await page.click('nav a:has-text("Map")')
    await page.waitForSelector('pre.map a')
    await page.click('nav a:has-text("Index")')
    await page.waitForSelector('.status-view table')
    await page.evaluate(() => document.querySelector('.status-view')!.setAttribute('data-before-sync', ''))
    await page.click('button:has-text("Sync now")')
    // The view is drawn again with the new figures once the sync is done: it still says what the sync did.
    await page.waitForSelector('.status-view:not([data-before-sync]) table', { timeout: 60_000 })
    assert.match((await page.textContent('.status-view p[role=status]')) ?? '', /^Synced in \d+ ms/)
  })

  it('reads in the dark theme and on a narrow window, every control named', async () => {
    await open()
    model.replyNext({ text: '`writeBlobRecord` (`src/store.ts:4-7`) takes the lock with `acquireLock` (`src/lock.ts:4-10`) before it persists the record.', model: 'test-model' })
    await ask('how are blob records written')
    await page.waitForSelector(`${lastAnswer}[aria-busy=false]`)
    await page.click(`${lastAnswer} .answer-body a.citation[href*="src%2Fstore.ts"]`)
    await page.waitForSelector('#L4.hl')
    await page.click('#theme-toggle')
    assert.equal(await page.getAttribute('html', 'data-theme'), 'dark')
    assert.equal(await page.evaluate(() => getComputedStyle(document.body).backgroundColor), 'rgb(13, 17, 23)')
    await page.screenshot({ path: join(shots, 'dark.png') })
    const unnamed = await page.$$eval('button, input, textarea, select, a[href]', (controls) =>
      controls
        .filter((c) => !(c.getAttribute('aria-label') || c.textContent?.trim() || (c as { labels?: { length: number } }).labels?.length))
        .map((c) => c.outerHTML.slice(0, 80)))
    assert.deepEqual(unnamed, [])
    await page.setViewportSize({ width: 600, height: 900 })
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 600), 'nothing runs off a narrow window')
    assert.ok(await page.locator('#question').isVisible())
    for (const name of ['chat.png', 'code.png', 'dark.png']) assert.ok(statSync(join(shots, name)).size > 10_000, name)
  })
})
