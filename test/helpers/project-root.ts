import { fileURLToPath } from 'node:url';

/** This repository's root: where its documents, redocly.yaml and package.json are. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url)).replace(/\/$/, '');
