// Which signers may sign orders for which makers. Signed orders of signature type 1 (POLY_PROXY) and 2
// (POLY_GNOSIS_SAFE) are funded by `maker` (a proxy wallet or a Safe) but signed by another address, the
// `signer` EOA. With no chain to ask who owns a wallet, the operator registers each (maker, signer) pair; the
// order API accepts such an order only when its pair is registered. Addresses are lower-case.
//
// Lists come out sorted, so the order of authorisations is not state: two tables with the same pairs are
// the same table (in the snapshot, the state hash and every answer).

export class SignerTable {
  private readonly byMaker = new Map<string, Set<string>>();
  private pairs = 0;

  /** Number of (maker, signer) pairs. */
  get size(): number {
    return this.pairs;
  }

  has(maker: string, signer: string): boolean {
    return this.byMaker.get(maker)?.has(signer) === true;
  }

  /** The signers authorised for `maker`, sorted. */
  signersOf(maker: string): string[] {
    return [...(this.byMaker.get(maker) ?? [])].sort();
  }

  /** Every pair as [maker, signer], sorted by maker then signer. */
  entries(): [string, string][] {
    const out: [string, string][] = [];
    for (const maker of [...this.byMaker.keys()].sort()) for (const signer of this.signersOf(maker)) out.push([maker, signer]);
    return out;
  }

  add(maker: string, signer: string): void {
    let signers = this.byMaker.get(maker);
    if (signers === undefined) this.byMaker.set(maker, (signers = new Set()));
    if (signers.has(signer)) return;
    signers.add(signer);
    this.pairs += 1;
  }

  remove(maker: string, signer: string): void {
    const signers = this.byMaker.get(maker);
    if (signers === undefined || !signers.delete(signer)) return;
    this.pairs -= 1;
    if (signers.size === 0) this.byMaker.delete(maker);
  }

  /** Why the table is unsound, for checkInvariants(); empty when sound. */
  problems(): string[] {
    const out: string[] = [];
    let counted = 0;
    for (const [maker, signers] of this.byMaker) {
      if (signers.size === 0) out.push(`signers: maker ${maker} is kept with no signer`);
      if (signers.has(maker)) out.push(`signers: maker ${maker} is listed as its own signer`);
      counted += signers.size;
    }
    if (counted !== this.pairs) out.push(`signers: ${counted} pairs held, ${this.pairs} counted`);
    return out;
  }
}
