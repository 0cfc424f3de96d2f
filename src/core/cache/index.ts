/** The remote cache of index records (issue 20): an HTTP cache shared by CI runners and developers. */
export { RemoteCache, type EntryKind, type RemoteCacheSettings, type RemoteCacheStats } from './remote-cache.js'
export { CACHE_CONNECTIONS } from './http-store.js'
