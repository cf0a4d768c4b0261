/** The one table is src/core/processEnv.ts. */
import { ENV } from '../core/processEnv.js';

export const STORAGE_ENV = ENV.storage;
export const CLI_ENV = ENV.cli;
