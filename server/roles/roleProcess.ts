// What server/main.ts holds of a running role.

export interface RoleProcess {
  readonly role: 'engine' | 'api' | 'projector';
  /** The HTTP port (/health, /ready, /metrics; the public API on an API node). */
  readonly port: number;
  /** The engine port (engine role only). */
  readonly enginePort?: number;
  /** Graceful shutdown. */
  close(): Promise<void>;
}
