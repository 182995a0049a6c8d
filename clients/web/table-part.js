// The part of the table a system's panel (or a piece of one) shares: <ph-app> and the replay
// page hand it `.me` ({member, role}), `.table` (the latest `table` message or a past
// snapshot) and `.views` (about -> view data); it draws itself again when the table or the
// views change. A subclass writes render() and reads this._table, this._views and this.me.

/** @import {Me, Snapshot, TableNow} from "./messages.js" */

export class TablePart extends HTMLElement {
  constructor() {
    super();
    /** @type {TableNow | Snapshot | null} */
    this._table = null;
    /** @type {Map<string, any>} */
    this._views = new Map();
    /** @type {Me | null} */
    this.me = null;
  }

  /** @param {TableNow | Snapshot | null} value */
  set table(value) {
    this._table = value;
    this.render();
  }

  /** @param {Map<string, any>} value */
  set views(value) {
    this._views = value;
    this.render();
  }

  /** A table and its views at once, drawn once (a replay's moment).
   * @param {TableNow | Snapshot | null} table @param {Map<string, any>} views */
  moment(table, views) {
    this._table = table;
    this._views = views;
    this.render();
  }

  render() {}
}
