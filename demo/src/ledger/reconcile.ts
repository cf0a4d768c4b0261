// Demo source for the build log's one error (demo/build-log.js prints
// `src/ledger/reconcile.ts(412,17): error TS2345`): open the log's editor page in the
// demo workspace and that reference is a link to line 412 here. Not built by anything.

export type Cents = number & { readonly __cents: unique symbol };

export interface Entry {
  readonly id: string;
  readonly account: string;
  readonly amount: string;
}

export function cents(n: number): Cents {
  return Math.round(n) as Cents;
}

function add(a: Cents, b: Cents): Cents {
  return (a + b) as Cents;
}

/** Rule 1: an account's running total, checked against its statement. */
export function rule1(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-001') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 2: an account's running total, checked against its statement. */
export function rule2(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-002') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 3: an account's running total, checked against its statement. */
export function rule3(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-003') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 4: an account's running total, checked against its statement. */
export function rule4(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-004') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 5: an account's running total, checked against its statement. */
export function rule5(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-005') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 6: an account's running total, checked against its statement. */
export function rule6(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-006') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 7: an account's running total, checked against its statement. */
export function rule7(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-007') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 8: an account's running total, checked against its statement. */
export function rule8(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-008') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 9: an account's running total, checked against its statement. */
export function rule9(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-009') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 10: an account's running total, checked against its statement. */
export function rule10(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-010') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 11: an account's running total, checked against its statement. */
export function rule11(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-011') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 12: an account's running total, checked against its statement. */
export function rule12(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-012') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 13: an account's running total, checked against its statement. */
export function rule13(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-013') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 14: an account's running total, checked against its statement. */
export function rule14(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-014') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 15: an account's running total, checked against its statement. */
export function rule15(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-015') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 16: an account's running total, checked against its statement. */
export function rule16(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-016') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 17: an account's running total, checked against its statement. */
export function rule17(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-017') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 18: an account's running total, checked against its statement. */
export function rule18(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-018') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 19: an account's running total, checked against its statement. */
export function rule19(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-019') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 20: an account's running total, checked against its statement. */
export function rule20(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-020') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 21: an account's running total, checked against its statement. */
export function rule21(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-021') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 22: an account's running total, checked against its statement. */
export function rule22(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-022') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 23: an account's running total, checked against its statement. */
export function rule23(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-023') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 24: an account's running total, checked against its statement. */
export function rule24(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-024') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 25: an account's running total, checked against its statement. */
export function rule25(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-025') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 26: an account's running total, checked against its statement. */
export function rule26(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-026') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 27: an account's running total, checked against its statement. */
export function rule27(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-027') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 28: an account's running total, checked against its statement. */
export function rule28(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-028') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 29: an account's running total, checked against its statement. */
export function rule29(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-029') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 30: an account's running total, checked against its statement. */
export function rule30(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-030') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 31: an account's running total, checked against its statement. */
export function rule31(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-031') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 32: an account's running total, checked against its statement. */
export function rule32(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-032') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 33: an account's running total, checked against its statement. */
export function rule33(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-033') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 34: an account's running total, checked against its statement. */
export function rule34(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-034') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 35: an account's running total, checked against its statement. */
export function rule35(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-035') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 36: an account's running total, checked against its statement. */
export function rule36(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-036') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 37: an account's running total, checked against its statement. */
export function rule37(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-037') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 38: an account's running total, checked against its statement. */
export function rule38(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-038') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 39: an account's running total, checked against its statement. */
export function rule39(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-039') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 40: an account's running total, checked against its statement. */
export function rule40(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-040') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 41: an account's running total, checked against its statement. */
export function rule41(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-041') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 42: an account's running total, checked against its statement. */
export function rule42(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-042') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 43: an account's running total, checked against its statement. */
export function rule43(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-043') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 44: an account's running total, checked against its statement. */
export function rule44(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-044') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 45: an account's running total, checked against its statement. */
export function rule45(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-045') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 46: an account's running total, checked against its statement. */
export function rule46(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-046') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 47: an account's running total, checked against its statement. */
export function rule47(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-047') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 48: an account's running total, checked against its statement. */
export function rule48(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-048') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 49: an account's running total, checked against its statement. */
export function rule49(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-049') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 50: an account's running total, checked against its statement. */
export function rule50(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-050') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 51: an account's running total, checked against its statement. */
export function rule51(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-051') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 52: an account's running total, checked against its statement. */
export function rule52(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-052') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 53: an account's running total, checked against its statement. */
export function rule53(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-053') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 54: an account's running total, checked against its statement. */
export function rule54(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-054') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 55: an account's running total, checked against its statement. */
export function rule55(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-055') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 56: an account's running total, checked against its statement. */
export function rule56(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-056') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 57: an account's running total, checked against its statement. */
export function rule57(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-057') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 58: an account's running total, checked against its statement. */
export function rule58(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-058') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 59: an account's running total, checked against its statement. */
export function rule59(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-059') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 60: an account's running total, checked against its statement. */
export function rule60(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-060') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 61: an account's running total, checked against its statement. */
export function rule61(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-061') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 62: an account's running total, checked against its statement. */
export function rule62(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-062') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 63: an account's running total, checked against its statement. */
export function rule63(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-063') return total;
  return add(total, cents(Number(entry.amount)));
}

/** Rule 64: an account's running total, checked against its statement. */
export function rule64(total: Cents, entry: Entry): Cents {
  if (entry.account !== 'acct-064') return total;
  return add(total, cents(Number(entry.amount)));
}



// (ledger rules above; reconcile below)
/** Reconciles one entry: the amount must be parsed before it is added. */
export function reconcile(total: Cents, entry: Entry): Cents {
  // The bug the build log reports: a string where Cents is expected.
  const next = add(
                entry.amount,
    total);
  return next;
}
