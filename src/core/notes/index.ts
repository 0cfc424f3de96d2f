/** Markdown notes as a knowledge source: the repository's markdown plus configured folders (e.g. an Obsidian vault). */
export { DEFAULT_NOTES_CONFIG, notesConfig, resolveFolder, type NotesConfig } from './config.js'
export { openNotes, NotesIndex, type Backlink, type NotesFreshness, type NotesOptions } from './build.js'
export { parseNote, MAX_SECTION_CHARS, type Heading, type ParsedNote, type Section } from './markdown.js'
export { parseFrontMatter, type FrontMatter, type FrontMatterValue } from './front-matter.js'
export { LinkResolver, type RawLink } from './links.js'
export { findNotes, searchIndex, type NoteHit, type NoteSearchOptions, type NotesSearchResult } from './search.js'
export { readNote, locateNote, type NoteLink, type NoteView } from './read.js'
export { searchNotes, type RetrievalResult, type VaultMetadata } from './retrieval.js'
