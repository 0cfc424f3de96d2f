/**
 * Writes oclif.manifest.json with its commands in id order. `oclif manifest` lists them in the order
 * its file loads finished, which varies between builds, so every build rewrote the committed file
 * with a diff that meant nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs'

const path = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(readFileSync(path, 'utf8')) as { commands: Record<string, unknown> }
const ids = Object.keys(manifest.commands).sort()
manifest.commands = Object.fromEntries(ids.map((id) => [id, manifest.commands[id]]))
writeFileSync(path, JSON.stringify(manifest, null, 2))
