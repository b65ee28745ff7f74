// Public surface of the configuration module.
export { SETTINGS, SETTING_NAMES, PROJECTION_INTERVAL_MS, PROJECTION_LIGHT_LOAD, envVarOf, flagOf, defaultText, liveStateOptionsOf, projectionIntervalOf, projectionLightLoadOf, projectionLagBudgetOf, PROJECTION_LAG_BUDGET_MS } from './settings.js';
export type { Config, Setting, SettingName } from './settings.js';
export { parseConfig, loadConfig, loadConfigOrExit, formatProblems, ConfigError } from './loadConfig.js';
export type { ConfigProblem, LoadResult, ValueSource, Env } from './loadConfig.js';
export { renderHelp, renderSettingsTable } from './configDocs.js';
export { parseCidr } from './valueKinds.js';
export type { Cidr, ValueKind } from './valueKinds.js';
