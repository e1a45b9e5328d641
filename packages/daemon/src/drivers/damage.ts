import type { ScreenChanges } from "./drivers.js";
import type { XConnection } from "./xConnection.js";

/** The parts of the x11 package's DAMAGE extension used here. */
interface DamageExtension {
  ReportLevel: { NonEmpty: number };
  Create(damage: number, drawable: number, level: number): void;
  Destroy(damage: number): void;
  Subtract(damage: number, repair: number, parts: number): void;
}

/**
 * Change notices from the X DAMAGE extension on the root window (drawing in any window counts:
 * the root's damage includes its children's). One damage object at the NonEmpty level serves all
 * the daemon's screen streams: the X server sends one event when the screen goes from undamaged to
 * damaged, and nothing more until a stream about to capture clears it ({@link rearm}). So a busy
 * screen costs at most one event per capture, and an idle one nothing. The object exists only
 * while a stream listens. Pointer motion is not damage (the X server draws the pointer apart).
 */
export class XDamage implements ScreenChanges {
  private readonly listeners = new Set<() => void>();
  private damage: number | undefined;

  private constructor(
    private readonly x: XConnection,
    private readonly ext: DamageExtension,
  ) {
    x.onEvent((e) => {
      if (e.name !== "DamageNotify" || e.damage !== this.damage) return;
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** DAMAGE on this connection, or undefined when the X server lacks it. */
  static async create(x: XConnection): Promise<XDamage | undefined> {
    const ext = (await x.requireExtension("damage").catch(() => undefined)) as DamageExtension | undefined;
    return ext && typeof ext.Create === "function" ? new XDamage(x, ext) : undefined;
  }

  get alive(): boolean {
    return !this.x.closed;
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    if (this.damage === undefined && !this.x.closed) {
      this.damage = this.x.allocId();
      this.ext.Create(this.damage, this.x.root, this.ext.ReportLevel.NonEmpty);
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0 || this.damage === undefined) return;
      if (!this.x.closed) this.ext.Destroy(this.damage);
      this.damage = undefined;
    };
  }

  rearm(): void {
    if (this.damage !== undefined && !this.x.closed) this.ext.Subtract(this.damage, 0, 0);
  }
}
