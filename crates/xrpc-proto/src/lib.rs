//! Sans-IO codecs for the PolarDB-X RPC wire protocol: frames, messages, row values, chunks, auth and error codes.
