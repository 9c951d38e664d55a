// Deviations from the contract that the proofs found and that are not fixed yet, each with an
// id the reports quote, what happens, what the contract wants, and where to fix it. Each is
// pinned by a test of the contract marked `it.fails` (security.test.ts, fuzz.test.ts): when the
// fix lands that test passes, vitest reports the pin as failed, and the pin and the entry go.
// Found and already fixed: F1 (JSON body values coerced to the schema's types: server/app.ts
// coerceTypes), F2 (U+0000 in a stored text or filter answered 500: server/http/nul-text.ts),
// F3 (OPTIONS answered 200 text/plain by Express: server/app.ts), F4 (requests Node's parser
// refuses answered without a body: server/http/client-errors.ts), F5 (paths matched without
// regard to case: server/app.ts case-sensitive routing), F7 (query text with ! ' ( ) * left raw,
// as encodeURIComponent and the SDK send it, refused: server/http/reserved-query.ts).

export interface KnownDeviation {
  readonly id: string;
  readonly title: string;
  readonly contract: string;
  readonly where: string;
}

export const KNOWN_DEVIATIONS = {
  F6: {
    id: 'F6',
    title: "The server answers InvalidRequest with 408 (a request too slow to arrive) and 431 (headers over 16 KiB), which the document's ErrorType table does not list for it (400, 405, 413, 415, 429)",
    contract: "the document's ErrorType table is the contract of type → status (spec §7 leaves it open; decisions §4 fixes it through the document)",
    where: 'openapi/components/schemas/ErrorType.yaml: add 408 and 431 to the InvalidRequest row (and say when), as server/http/client-errors.ts answers them.',
  },
} as const satisfies Record<string, KnownDeviation>;
