// The multiplexers `muxcover -mux8 -mux4` leaves, on the ECP5's PFU (the flow's LUT mapping
// `muxcover-abc9-nowidelut`, fpga/src/board.rs). Each LUT4 is a 2:1 multiplexer of its own two
// inputs (INIT 16'hCACA: Z = C ? B : A); two of them feed a PFUMX (Z = C0 ? ALUT : BLUT), two
// PFUMX an L6MUX21 (Z = SD ? D1 : D0). yosys's own wide LUTs give both LUT4s of a PFUMX the
// same inputs, which takes 6 LUT4 for an 8:1 multiplexer where this takes 4.

module \$_MUX4_ (A, B, C, D, S, T, Y);
    input A, B, C, D, S, T;
    output Y;
    wire low, high;
    LUT4 #(.INIT(16'hCACA)) low_lut (.A(A), .B(B), .C(S), .D(1'b0), .Z(low));
    LUT4 #(.INIT(16'hCACA)) high_lut (.A(C), .B(D), .C(S), .D(1'b0), .Z(high));
    PFUMX mux (.ALUT(high), .BLUT(low), .C0(T), .Z(Y));
endmodule

module \$_MUX8_ (A, B, C, D, E, F, G, H, S, T, U, Y);
    input A, B, C, D, E, F, G, H, S, T, U;
    output Y;
    wire [3:0] pair;
    wire low, high;
    LUT4 #(.INIT(16'hCACA)) lut0 (.A(A), .B(B), .C(S), .D(1'b0), .Z(pair[0]));
    LUT4 #(.INIT(16'hCACA)) lut1 (.A(C), .B(D), .C(S), .D(1'b0), .Z(pair[1]));
    LUT4 #(.INIT(16'hCACA)) lut2 (.A(E), .B(F), .C(S), .D(1'b0), .Z(pair[2]));
    LUT4 #(.INIT(16'hCACA)) lut3 (.A(G), .B(H), .C(S), .D(1'b0), .Z(pair[3]));
    PFUMX mux_low (.ALUT(pair[1]), .BLUT(pair[0]), .C0(T), .Z(low));
    PFUMX mux_high (.ALUT(pair[3]), .BLUT(pair[2]), .C0(T), .Z(high));
    L6MUX21 mux (.D0(low), .D1(high), .SD(U), .Z(Y));
endmodule
