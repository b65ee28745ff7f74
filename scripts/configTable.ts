// Prints the configuration table of docs/configuration.md, generated from config/settings.ts: `npm run --silent config:table`.
import { renderSettingsTable } from '../config/index.js';

process.stdout.write(renderSettingsTable());
