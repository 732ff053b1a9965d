package txbuild

import (
	"encoding/binary"

	"github.com/gagliardetto/solana-go"
)

// Instructions of SPL Token and Token-2022. The two programs share the layout
// of the instructions used here, so each encoder takes the program id;
// solana-go's token builders are bound to the Token program id. Layouts follow
// the programs' instruction unpackers and are pinned byte for byte in
// token_test.go.

// Token instruction tags (the first data byte).
const (
	tagCloseAccount = 9
	tagBurnChecked  = 15
	// tagTransferFeeExtension prefixes Token-2022's transfer-fee instructions;
	// the second byte selects one of them.
	tagTransferFeeExtension  = 26
	transferFeeHarvestToMint = 4
)

// closeAccount closes a token account, sending all its lamports to dest; the
// owner signs. Accounts: account (w), dest (w), owner (s).
func closeAccount(program, account, dest, owner solana.PublicKey) solana.Instruction {
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(dest).WRITE(),
		solana.Meta(owner).SIGNER(),
	}, []byte{tagCloseAccount})
}

// burnChecked burns amount base units of mint from account; the owner signs.
// Data: tag, amount (u64 LE), decimals. Accounts: account (w), mint (w),
// owner (s). The decimals check makes a stale or forged item fail instead of
// burning the wrong quantity.
func burnChecked(program, account, mint, owner solana.PublicKey, amount uint64, decimals uint8) solana.Instruction {
	data := binary.LittleEndian.AppendUint64([]byte{tagBurnChecked}, amount)
	data = append(data, decimals)
	return solana.NewInstruction(program, solana.AccountMetaSlice{
		solana.Meta(account).WRITE(),
		solana.Meta(mint).WRITE(),
		solana.Meta(owner).SIGNER(),
	}, data)
}

// harvestWithheldTokensToMint (Token-2022 only, permissionless) moves the
// transfer fees withheld in sources into their mint. A Token-2022 account
// with withheld fees cannot be closed, so this precedes its CloseAccount.
// Data: 26, 4. Accounts: mint (w), then each source (w).
func harvestWithheldTokensToMint(mint solana.PublicKey, sources ...solana.PublicKey) solana.Instruction {
	metas := solana.AccountMetaSlice{solana.Meta(mint).WRITE()}
	for _, s := range sources {
		metas = append(metas, solana.Meta(s).WRITE())
	}
	return solana.NewInstruction(solana.Token2022ProgramID, metas, []byte{tagTransferFeeExtension, transferFeeHarvestToMint})
}
