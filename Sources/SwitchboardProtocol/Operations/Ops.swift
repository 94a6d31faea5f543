//===----------------------------------------------------------------------===//
//
// This source file is part of the Switchboard open source project
//
// SPDX-License-Identifier: Apache-2.0
//
//===----------------------------------------------------------------------===//

/// The namespace of the op declarations: `Ops.MessagesSend`, `Ops.Register`, ...
public enum Ops {}
